import { describe, expect, it } from "vitest"
import { PlanInputError } from "../../../services/plan/plan.errors"
import { readWindow, replaceExact } from "../../../services/plan/plan.text"

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n"

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
    expect(readWindow(lines(10), { offset: 4, limit: 2 })).toBe(
      "4: line 4\n5: line 5\n\n(Showing lines 4-5 of 10. Use offset=6 to read more.)",
    )
    expect(readWindow(lines(10), { offset: 9, limit: 5 })).toBe("9: line 9\n10: line 10")
  })

  it("rejects an offset past the end and bad numbers with a clear error", () => {
    expect(() => readWindow(lines(3), { offset: 4 })).toThrow(
      new PlanInputError("offset 4 is past the end of the plan: it has 3 lines"),
    )
    expect(() => readWindow(lines(3), { offset: 0 })).toThrow("offset must be a whole number from 1 (got 0)")
    expect(() => readWindow(lines(3), { limit: 0 })).toThrow("limit must be a whole number from 1 (got 0)")
    expect(() => readWindow(lines(3), { offset: 1.5 })).toThrow(PlanInputError)
  })

  it("reads an empty text as empty at offset 1 only", () => {
    expect(readWindow("")).toBe("")
    expect(() => readWindow("", { offset: 2 })).toThrow("offset 2 is past the end of the plan: it has 0 lines")
  })
})

describe("replaceExact", () => {
  const text = "## Tasks\n- [ ] 1. a\n- [ ] 2. a\n## Acceptance Criteria\n- ok\n"

  it("replaces a unique match and reports the lines it wrote", () => {
    expect(replaceExact(text, "- ok\n", "- ok\n- also fast\n")).toEqual({
      text: "## Tasks\n- [ ] 1. a\n- [ ] 2. a\n## Acceptance Criteria\n- ok\n- also fast\n",
      count: 1,
      touched: [5, 6],
    })
  })

  it("takes the replacement literally", () => {
    expect(replaceExact("cost: X", "X", "$& $1 $$").text).toBe("cost: $& $1 $$")
  })

  it("replaces every occurrence with replaceAll", () => {
    const result = replaceExact(text, "1. a", "1. b", true)
    expect(result.count).toBe(1)
    const all = replaceExact(text, ". a\n", ". z\n", true)
    expect(all).toEqual({ text: text.replace(/\. a\n/g, ". z\n"), count: 2, touched: [2, 3] })
  })

  it("reports a deletion at the line where it happened", () => {
    expect(replaceExact(text, "- ok\n", "").touched).toEqual([4, 4])
    expect(replaceExact(text, "- [ ] 2. a\n", "").touched).toEqual([3, 3])
  })

  it("refuses an ambiguous match, naming the count", () => {
    expect(() => replaceExact(text, ". a", ". b")).toThrow(
      "oldString was found 2 times. Include more surrounding text to make it unique, or set replaceAll to replace every occurrence.",
    )
  })

  it("refuses a missing match, naming the count", () => {
    expect(() => replaceExact(text, "- nope", "- yes")).toThrow(/^oldString was found 0 times in the plan/)
  })

  it("refuses oldString carrying read-window line prefixes, with a hint", () => {
    expect(() => replaceExact(text, "5: - ok", "5: - fine")).toThrow(
      'oldString was found 0 times. It carries plan_read line-number prefixes ("N: ") on 1 line(s); they are not part of the plan. Remove them (without them it matches 1 time).',
    )
    expect(() => replaceExact(text, "2: - [ ] 1. a\n3: - [ ] 2. a", "x")).toThrow(/on 2 line\(s\).*matches 1 time\)/)
  })

  it("accepts a literal number prefix that is really in the text", () => {
    expect(replaceExact("12: noon\n", "12: noon", "12: midday").text).toBe("12: midday\n")
  })

  it("refuses identical strings and an empty oldString on an existing text", () => {
    expect(() => replaceExact(text, "- ok", "- ok")).toThrow("oldString and newString are identical")
    expect(() => replaceExact(text, "", "x")).toThrow(/^oldString is empty/)
  })

  it("refuses a non-string oldString or newString from a caller that skipped validation, instead of searching forever", () => {
    // A number the text contains once sent the search into an endless loop (needle.length was undefined).
    const text = "Sessions survive 40 s of idle.\n"
    expect(() => replaceExact(text, 40 as unknown as string, "x")).toThrow(PlanInputError)
    expect(() => replaceExact(text, 40 as unknown as string, "x")).toThrow(/^oldString must be a string \(got number\)$/)
    expect(() => replaceExact(text, ["40"] as unknown as string, "x")).toThrow(/^oldString must be a string \(got object\)$/)
    expect(() => replaceExact(text, "40", null as unknown as string)).toThrow(/^newString must be a string \(got null\)$/)
  })

  it("answers an oldString that is only a line prefix without searching for the empty rest forever", () => {
    expect(() => replaceExact("a\nb\n", "1: ", "x")).toThrow(/^oldString was found 0 times\. It carries plan_read line-number prefixes .* \(without them it matches 0 times\)\.$/)
  })

  it("creates an empty text from an empty oldString", () => {
    expect(replaceExact("", "", "## Tasks\n")).toEqual({ text: "## Tasks\n", count: 1, touched: [1, 1] })
  })
})
