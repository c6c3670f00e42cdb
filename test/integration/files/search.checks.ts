// forge_search's hostile-pattern checks, run on Node by search.hostile.test.ts and inside opencode's Bun by
// search.bun.ts: the search as createHostFiles composes it for the plugin, over a tree each check writes. Each check
// throws when the answer is wrong; the callers also watch the event loop while it runs.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import type { SearchAnswer, SearchRequest } from "../../../services/files/search"
import { createHostFiles } from "../../../src/files/files.lazy"

export interface SearchChecks {
  cases: Record<string, () => Promise<void>>
  /** Writes the files (path → content) into a new temp folder and returns it. */
  tree(files: Record<string, string | Uint8Array>): string
  search(request: SearchRequest): Promise<SearchAnswer>
  close(): void
}

function ensure(condition: boolean, message: string): void {
  if (!condition) throw new Error(message)
}

async function rejects(run: Promise<unknown>, pattern: RegExp): Promise<void> {
  try {
    await run
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    ensure(pattern.test(message), `expected an error matching ${pattern}, got: ${message}`)
    return
  }
  throw new Error(`expected an error matching ${pattern}, got an answer`)
}

export function searchChecks(): SearchChecks {
  const host = createHostFiles({
    clock: { now: () => Date.now() },
    connection: () => Promise.reject(new Error("the search checks open no database")),
    journalMaxMB: 1,
  })
  const dirs: string[] = []
  const tree = (files: Record<string, string | Uint8Array>): string => {
    const root = mkdtempSync(path.join(tmpdir(), "forge-search-hostile-"))
    dirs.push(root)
    for (const [rel, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
      writeFileSync(path.join(root, rel), content)
    }
    return root
  }
  const search = (request: SearchRequest) => host.search(request)
  const as30 = `${"a".repeat(30)}.txt`

  const cases: Record<string, () => Promise<void>> = {
    async "answers a catastrophic file_pattern ({a,a}* nested) with the right files, without freezing"() {
      const root = tree({ [as30]: "needle\n", "b.txt": "needle\n" })
      const none = await search({ path: root, regex: "needle", filePattern: `${"{a,a}*".repeat(8)}b` })
      ensure(/^No matches .*file_pattern .* matched no file\.$/.test(none.text), `got: ${none.text}`)
      const some = await search({ path: root, regex: "needle", filePattern: "*a*a*a*a*a*a*a*a*.txt" })
      ensure(some.matches === 1 && some.text.includes(`${as30}\n1: needle`), `got: ${some.text}`)
      const stars = await search({ path: root, regex: "needle", filePattern: "*a*a*a*a*a*a*a*a*b" })
      ensure(stars.matches === 0 && stars.searched === 0, `got: ${stars.text}`)
    },

    async "refuses a huge brace range in file_pattern, naming the limit; a long brace chain matches as written"() {
      const root = tree({ "7.ts": "needle\n" })
      await rejects(
        search({ path: root, regex: "needle", filePattern: "{1..100000000}.ts" }),
        /file_pattern "\{1\.\.100000000\}\.ts" is not a valid glob: the range \{1\.\.100000000\} stands for 100,000,000 values; the limit is 1,000/,
      )
      const chain = await search({ path: root, regex: "needle", filePattern: `${"{a,b,7}".repeat(1)}${"{,x,y}".repeat(150)}.ts` })
      ensure(chain.matches === 1, `got: ${chain.text}`)
    },

    async "finds the line a catastrophic regex matches, (a+)+b|c on 40 a's and a c"() {
      const root = tree({ "x.txt": `${"a".repeat(40)}c\nplain\n` })
      const answer = await search({ path: root, regex: "(a+)+b|c" })
      ensure(answer.matches === 1 && answer.text.includes(`x.txt\n1: ${"a".repeat(40)}c`), `got: ${answer.text}`)
    },

    async "decides every line of backtracking regexes: (a+)+$ on 30 a's and a b is no match, the lines that match are found"() {
      const root = tree({ "x.txt": `${"a".repeat(30)}b\n${"a".repeat(30)}\n` })
      const none = await search({ path: root, regex: "(a+)+$|(a|a)+c$" })
      ensure(none.matches === 1 && none.text.includes(`x.txt\n2: ${"a".repeat(30)}`), `got: ${none.text}`)
      const nothing = await search({ path: root, regex: "(a+)+c$" })
      ensure(nothing.text.startsWith("No matches for /(a+)+c$/") && nothing.searched === 1, `got: ${nothing.text}`)
      const first = await search({ path: root, regex: "(x+x+)+y|(a+)+b$" })
      ensure(first.matches === 1 && first.text.includes(`x.txt\n1: ${"a".repeat(30)}b`), `got: ${first.text}`)
    },

    async "compiles a regex whose program is huge ([\\s\\S]{1000} 800 times) off the event loop, and answers"() {
      const root = tree({ "x.txt": "short\n" })
      const answer = await search({ path: root, regex: "[\\s\\S]{1000}".repeat(800) })
      ensure(answer.text.startsWith("No matches for /[\\s\\S]{1000}") && answer.searched === 1, `got: ${answer.text.slice(0, 200)}`)
    },
  }
  return {
    cases,
    tree,
    search,
    close() {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
    },
  }
}
