import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { workerLineMatcher } from "../../../adapters/process/search.matcher"
import { createSearchFiles } from "../../../adapters/workspace/search.files"
import { runSearch } from "../../../services/files/search"
import { SEARCH_BOUNDS } from "../../../services/files/search.tally"
import { tempDir } from "../../temp.dir"

// forge_search's worker matcher: a regex that backtracks stops the search at the file where its budget ran out, and
// many files each within their own budget still stop at the budget of the whole search.

/** A line `(a+)+$` backtracks on for tens to hundreds of milliseconds, far within a budget of seconds. */
const SLOW_LINE = `${"a".repeat(23)}!`

function slowTree(files: number): string {
  const root = tempDir("forge-search-matcher-")
  mkdirSync(root, { recursive: true })
  for (let i = 0; i < files; i++) writeFileSync(path.join(root, `f${String(i).padStart(2, "0")}.txt`), `${SLOW_LINE}\nmatch me\n`)
  return root
}

describe("workerLineMatcher", () => {
  it("stops at the file whose lines outlast the file budget, naming it", async () => {
    const root = slowTree(1)
    writeFileSync(path.join(root, "f00.txt"), `${"a".repeat(40)}!\n`)
    const answer = await runSearch(createSearchFiles(), { path: root, regex: "(a+)+$" }, SEARCH_BOUNDS, workerLineMatcher({ fileBudgetMs: 300 }))
    expect(answer.text).toMatch(/\nThe search stopped at f00\.txt: testing its lines took longer than 0\.3 s \(a regex that backtracks without end\?\);/)
  })

  it("stops when slow files add up past the search budget, though none outlasts its own", async () => {
    const root = slowTree(30)
    const started = performance.now()
    const answer = await runSearch(
      createSearchFiles(),
      { path: root, regex: "(a+)+$|match me" },
      SEARCH_BOUNDS,
      workerLineMatcher({ fileBudgetMs: 20_000, searchBudgetMs: 250 }),
    )
    expect(performance.now() - started).toBeLessThan(10_000)
    expect(answer.searched).toBeLessThan(30)
    expect(answer.text).toMatch(
      /\nThe search stopped at f\d\d\.txt: testing the files' lines took longer than 0\.25 s in all \(a slow regex over many files\?\); what is above comes from the files before it\./,
    )
  })

  it("searches every file when the regex is quick, within both budgets", async () => {
    const root = slowTree(30)
    const answer = await runSearch(createSearchFiles(), { path: root, regex: "match me" }, SEARCH_BOUNDS, workerLineMatcher({ searchBudgetMs: 5_000 }))
    expect(answer).toMatchObject({ searched: 30, matches: 30 })
    expect(answer.text).not.toContain("stopped")
  })
})
