import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { captureBlock, spliceCaptures, syncCaptures } from "../../../scripts/captures"

// Every dialog's screen a TUI scenario captures (docs/captures/) is shown on a docs page, and each copy there is the
// capture as it stands: `npm run captures` copies them, as `npm run viz` draws the diagrams.

const temps: string[] = []
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

describe("dialog captures on the docs pages", () => {
  it("every capture is shown on a page, and every copy is current", () => {
    expect(syncCaptures(false)).toEqual([])
  })

  it("a stale copy is replaced by its capture, a block without a capture is named, others are left alone", () => {
    const page = [
      "# Goals",
      "",
      "<!-- capture goal-arm -->",
      "```text",
      "old screen",
      "```",
      "<!-- /capture -->",
      "",
      "<!-- capture gone -->",
      "x",
      "<!-- /capture -->",
      "",
    ].join("\n")
    const { text, shown, missing } = spliceCaptures(page, new Map([["goal-arm", "⚙ goal_write [decide=arm]\n"]]))
    expect(text).toContain(captureBlock("goal-arm", "⚙ goal_write [decide=arm]\n"))
    expect(text).not.toContain("old screen")
    expect(text).toContain("<!-- capture gone -->\nx\n<!-- /capture -->")
    expect(shown).toEqual(["goal-arm", "gone"])
    expect(missing).toEqual(["gone"])
  })

  it("--check names a stale page, a missing capture and a capture no page shows; a sync writes the pages", () => {
    const docs = fs.mkdtempSync(path.join(os.tmpdir(), "forge-captures-"))
    temps.push(docs)
    const captures = path.join(docs, "captures")
    fs.mkdirSync(captures)
    fs.writeFileSync(path.join(captures, "a.txt"), "screen A\n")
    fs.writeFileSync(path.join(captures, "orphan.txt"), "nobody shows me\n")
    fs.writeFileSync(path.join(docs, "page.md"), "<!-- capture a -->\nold\n<!-- /capture -->\n<!-- capture b -->\n<!-- /capture -->\n")
    expect(syncCaptures(false, docs, captures)).toEqual([
      "docs/page.md shows capture b, and docs/captures/b.txt does not exist",
      "docs/page.md: its copy of a capture is stale (npm run captures copies them)",
      "docs/captures/orphan.txt is shown on no docs page (add <!-- capture orphan --> … <!-- /capture --> to one)",
    ])
    syncCaptures(true, docs, captures)
    expect(fs.readFileSync(path.join(docs, "page.md"), "utf8")).toContain(captureBlock("a", "screen A\n"))
    expect(syncCaptures(false, docs, captures).filter((p) => p.includes("stale"))).toEqual([])
  })
})
