import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { workerSearchScanner } from "../../../adapters/process/search.scanner"
import { runSearch } from "../../../services/files/search"
import { tempDir } from "../../temp.dir"

// forge_search's worker-thread scanner: the pool's workers share the walk and answer in its order, a limit that is
// hit is an error naming it and what it left undecided, and a bad folder is refused in the search's words.

function tree(files: number): string {
  const root = tempDir("forge-search-scanner-")
  for (let i = 0; i < files; i++) {
    const file = path.join(root, `d${i % 3}`, `f${String(i).padStart(2, "0")}.txt`)
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, `line one\nmatch ${i}\n`)
  }
  return root
}

describe("workerSearchScanner", () => {
  const scanner = workerSearchScanner({ workers: 3 })
  afterAll(() => scanner.close())

  it("shares the files among its workers and answers in the walk's order", async () => {
    const root = tree(30)
    const answer = await runSearch(scanner, { path: root, regex: "match \\d+" }, { maxMatches: 4, maxLineChars: 300 })
    expect(answer).toMatchObject({ searched: 30, matches: 30, files: 30, shown: 4 })
    expect(answer.text).toMatch(
      /^30 matching lines in 30 files .*, the first 4 shown; 30 files searched\.\n\nd0\/f00\.txt\n2: match 0\n\nd0\/f03\.txt\n2: match 3\n\nd0\/f06\.txt/,
    )
  })

  it("reports a time limit that is hit as an error naming it and what it left undecided, never as No matches", async () => {
    const root = tree(12)
    const limited = workerSearchScanner({ workers: 2, limitMs: 0 })
    try {
      await expect(runSearch(limited, { path: root, regex: "nothing here" })).rejects.toThrow(
        /^forge_search: the search for \/nothing here\/ under .* hit the search's time limit of 0 s and could not decide for \d+ lines \(read, not yet tested\) and the lines of \d+ files not yet read; .*This is no complete answer/,
      )
    } finally {
      limited.close()
    }
  })

  it("refuses a folder that does not exist, naming it", async () => {
    const root = tree(1)
    await expect(runSearch(scanner, { path: path.join(root, "nope"), regex: "x" })).rejects.toThrow(
      `forge_search: cannot search ${path.join(root, "nope")}: no such file or folder`,
    )
  })
})
