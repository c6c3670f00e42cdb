import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { createLineSearch } from "../../../adapters/process/line.search"
import { searchDocuments } from "../../../services/documents/document.search"
import { PlanInputError } from "../../../services/plan/plan.errors"

// plan_read's pattern search over the real bounded matcher (a worker per search): line semantics, an invalid
// pattern, a catastrophic one cut off at its line budget, and a long search cut off at its total budget.

const search = createLineSearch()
const doc = (text: string) => [{ path: ".opencode/plan/p.md", text }]

describe("bounded line search", () => {
  it("tests each line on its own and numbers the hits from 1", async () => {
    expect(await searchDocuments(search, "^- \\[.\\] \\d", doc("## Tasks\n- [ ] 1. a\n- [x] 2. b\r\n"))).toEqual([
      { path: ".opencode/plan/p.md", line: 2, text: "- [ ] 1. a" },
      { path: ".opencode/plan/p.md", line: 3, text: "- [x] 2. b" },
    ])
    // $ is the end of the line, not of the text; a line never sees the one before it.
    expect(await search.matchingLines("a$", ["xa", "ab", "ba"])).toEqual({ status: "searched", matches: [0, 2] })
    expect(await search.matchingLines("b\\na", ["b", "a"])).toEqual({ status: "searched", matches: [] })
    expect(await searchDocuments(search, "z", doc("a\nb\n"))).toEqual([])
    expect(await search.matchingLines("x", [])).toEqual({ status: "searched", matches: [] })
  })

  it("maps hits of several documents back to their own files and lines", async () => {
    const docs = [
      { path: ".opencode/plan/a.md", text: "one\nlogin\n" },
      { path: ".opencode/plan/b.md", text: "login here\n" },
    ]
    expect(await searchDocuments(search, "login", docs)).toEqual([
      { path: ".opencode/plan/a.md", line: 2, text: "login" },
      { path: ".opencode/plan/b.md", line: 1, text: "login here" },
    ])
  })

  it("names an invalid pattern", async () => {
    await expect(searchDocuments(search, "(unclosed", doc("a"))).rejects.toThrow(/^invalid regex pattern "\(unclosed": /)
    await expect(searchDocuments(search, "(unclosed", doc("a"))).rejects.toThrow(PlanInputError)
  })

  it("abandons a catastrophic pattern at its line budget, naming the line, without blocking the event loop", async () => {
    let ticks = 0
    const timer = setInterval(() => (ticks += 1), 10)
    const searching = searchDocuments(createLineSearch({ lineBudgetMs: 300 }), "(a+)+$", doc(`fine\n${"a".repeat(40)}!\n`))
    await expect(searching).rejects.toThrow(
      /^pattern "\(a\+\)\+\$" took too long \(over 300 ms on line 2 of \.opencode\/plan\/p\.md\) and was abandoned: it backtracks too much/,
    )
    clearInterval(timer)
    expect(ticks).toBeGreaterThan(0)
  })

  it("abandons a search that outlasts its total budget", async () => {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i}`)
    const result = await createLineSearch({ searchBudgetMs: 0 }).matchingLines("line", lines)
    expect(result).toMatchObject({ status: "timed-out", budgetMs: 0, scope: "search" })
    await expect(searchDocuments(createLineSearch({ searchBudgetMs: 0 }), "line", doc(lines.join("\n")))).rejects.toThrow(
      /^pattern "line" took too long \(over 0 ms in all, stopped at line \d+ of \.opencode\/plan\/p\.md\) and was abandoned/,
    )
  })

  it("an escaped literal finds exactly the lines containing it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.string({ unit: "binary", maxLength: 40 }).map((s) => s.replace(/[\r\n\u2028\u2029]/g, "")),
          { maxLength: 30 },
        ),
        fc.string({ minLength: 1, maxLength: 3 }),
        async (ls, needle) => {
          fc.pre(!/[\r\n\u2028\u2029]/.test(needle))
          const pattern = needle.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")
          const expected = ls.flatMap((l, i) => (l.includes(needle) ? [i] : []))
          expect(await search.matchingLines(pattern, ls)).toEqual({ status: "searched", matches: expected })
        },
      ),
      { numRuns: 40 },
    )
  })
})
