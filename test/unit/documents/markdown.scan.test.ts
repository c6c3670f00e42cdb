import { describe, expect, it } from "vitest"
import {
  lineAt,
  lineStarts,
  normalizeTitle,
  parseListItem,
  quoteLine,
  scanMarkdown,
  sectionsTitled,
  splitLines,
} from "../../../services/documents/markdown.scan"

describe("lines", () => {
  it("splits LF and CRLF lines without opening an empty last line", () => {
    expect(splitLines("a\r\nb\n\nc\n")).toEqual(["a", "b", "", "c"])
    expect(splitLines("")).toEqual([])
    expect(splitLines("x")).toEqual(["x"])
  })

  it("maps offsets to 1-based lines", () => {
    const text = "ab\ncd\n"
    const starts = lineStarts(text)
    expect(starts).toEqual([0, 3, 6])
    expect([0, 2, 3, 5].map((offset) => lineAt(starts, offset))).toEqual([1, 1, 2, 2])
  })
})

describe("scanMarkdown", () => {
  it("finds ATX headings, strips closing hashes, and skips fenced code", () => {
    const lines = ["# Goal ##", "text", "```bash", "# a comment", "```", "~~~", "## inside", "~~~", "### Checks", "#nope"]
    const scan = scanMarkdown(lines)
    expect(scan.headings).toEqual([
      { index: 0, level: 1, title: "Goal" },
      { index: 8, level: 3, title: "Checks" },
    ])
    expect(scan.fenced).toEqual([false, false, true, true, true, true, true, true, false, false])
    expect(scan.unclosedFence).toBeUndefined()
  })

  it("names a fence that is never closed, and treats a backtick run with backticks after it as inline code", () => {
    expect(scanMarkdown(["a", "````", "# x"]).unclosedFence).toBe(1)
    expect(scanMarkdown(["```js `x`", "# Real"]).headings).toEqual([{ index: 1, level: 1, title: "Real" }])
  })
})

describe("sections", () => {
  const lines = ["# Goal", "## Checks:", "- a", "### detail", "- b", "## Notes", "x", "## checks", "- c"]
  const scan = scanMarkdown(lines)

  it("spans each titled section to the next heading of the same or a higher level, titles compared loosely", () => {
    expect(normalizeTitle("  Acceptance   Criteria: ")).toBe("acceptance criteria")
    expect(sectionsTitled(scan, new Set(["checks"]), lines.length).map((s) => [s.heading.index, s.from, s.to])).toEqual([
      [1, 2, 5],
      [7, 8, 9],
    ])
  })

  it("ends a section early at a deeper heading the caller names", () => {
    const [checks] = sectionsTitled(scan, new Set(["checks"]), lines.length, (h) => h.title === "detail")
    expect(checks?.to).toBe(3)
  })
})

describe("list items", () => {
  it("reads top-level bullets and numbered items, with a checkbox when there is one", () => {
    expect(parseListItem("- plain")).toEqual({ text: "plain" })
    expect(parseListItem("* [x] done")).toEqual({ text: "done", checked: true })
    expect(parseListItem("1) [ ] open")).toEqual({ text: "open", checked: false })
    expect(parseListItem("-")).toEqual({ text: "" })
    expect(parseListItem("[x]")).toBeUndefined()
    expect(parseListItem("  - indented")).toBeUndefined()
    expect(parseListItem("-nospace")).toBeUndefined()
    expect(parseListItem("- [x]")).toEqual({ text: "[x]" })
  })

  it("quotes a long line on one readable line", () => {
    expect(quoteLine(`  ${"a".repeat(100)}  `, 10)).toBe(`"${"a".repeat(9)}…"`)
  })
})
