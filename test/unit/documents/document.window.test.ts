import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { DocumentInputError } from "../../../services/documents/document.errors"
import { readWindow } from "../../../services/documents/document.window"

// Moved from test/unit/plan (plan.text.test.ts, plan.properties.test.ts): plan_read's window is the documents' one.

const lines = (n: number) => `${Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n")}\n`

describe("readWindow", () => {
  it("prefixes every line with its number and adds no notice when the window reaches the end", () => {
    expect(readWindow("a\n\nc\n")).toBe("1: a\n2: \n3: c")
    expect(readWindow("a\r\nb")).toBe("1: a\n2: b")
  })

  it("reads 2000 lines by default and says where to continue", () => {
    const out = readWindow(lines(2500))
    const shown = out.split("\n")
    expect(shown[0]).toBe("1: line 1")
    expect(shown[1999]).toBe("2000: line 2000")
    expect(shown.slice(2000)).toEqual(["", "(Showing lines 1-2000 of 2500. Use offset=2001 to read more.)"])
  })

  it("honours offset and limit", () => {
    expect(readWindow(lines(10), { offset: 4, limit: 2 })).toBe("4: line 4\n5: line 5\n\n(Showing lines 4-5 of 10. Use offset=6 to read more.)")
    expect(readWindow(lines(10), { offset: 9, limit: 5 })).toBe("9: line 9\n10: line 10")
  })

  it("rejects an offset past the end and bad numbers with a clear error", () => {
    expect(() => readWindow(lines(3), { offset: 4, what: "plan" })).toThrow(new DocumentInputError("offset 4 is past the end of the plan: it has 3 lines"))
    expect(() => readWindow(lines(3), { offset: 0 })).toThrow("offset must be a whole number from 1 (got 0)")
    expect(() => readWindow(lines(3), { limit: 0 })).toThrow("limit must be a whole number from 1 (got 0)")
    expect(() => readWindow(lines(3), { offset: 1.5 })).toThrow(DocumentInputError)
  })

  it("reads an empty text as empty at offset 1 only", () => {
    expect(readWindow("")).toBe("")
    expect(() => readWindow("", { offset: 2, what: "plan" })).toThrow("offset 2 is past the end of the plan: it has 0 lines")
  })

  it("names what it reads in its errors, a document unless told", () => {
    expect(() => readWindow(lines(1), { offset: 3 })).toThrow("offset 3 is past the end of the document: it has 1 line")
    expect(() => readWindow(lines(1), { offset: 3, what: "goal" })).toThrow("offset 3 is past the end of the goal: it has 1 line")
  })

  it("walks every line exactly once through its continuation offsets", () => {
    const anyText = fc.string({ unit: "binary", maxLength: 40 })
    const textLines = fc.array(
      anyText.map((s) => s.replace(/[\r\n]/g, "")),
      { maxLength: 30 },
    )
    fc.assert(
      fc.property(textLines, fc.integer({ min: 1, max: 7 }), (ls, limit) => {
        const text = ls.map((l) => `${l}\n`).join("")
        const seen: string[] = []
        let offset = 1
        for (let guard = 0; guard < 100 && ls.length > 0; guard++) {
          const out = readWindow(text, { offset, limit })
          const notice = /\n\n\(Showing lines \d+-(\d+) of \d+\. Use offset=(\d+) to read more\.\)$/.exec(out)
          const window = notice ? out.slice(0, notice.index) : out
          window.split("\n").forEach((l, i) => {
            expect(l.startsWith(`${offset + i}: `)).toBe(true)
            seen.push(l.slice(`${offset + i}: `.length))
          })
          if (!notice) break
          offset = Number(notice[2])
        }
        expect(seen).toEqual(ls)
      }),
      { numRuns: 300 },
    )
  })
})
