// forge_search as the plugin composes it (createHostFiles: the worker-thread scanner) given hostile patterns: a
// catastrophic glob, a huge brace range, catastrophic regexes. Each answers correctly or with an error naming the
// limit, while the host's event loop keeps ticking (a freeze, not a slow search, is what fails these tests).
import { execFileSync } from "node:child_process"
import { afterAll, describe, expect, it } from "vitest"
import { searchChecks } from "./search.checks"
import { runUnderOpencodeBun } from "../../bun.script"

/** Runs `body` while a 20 ms interval ticks; returns its result and the longest gap between two ticks (ms). */
async function withTicks<T>(body: () => Promise<T>): Promise<{ value: T; gapMs: number }> {
  let last = performance.now()
  let gapMs = 0
  const timer = setInterval(() => {
    const now = performance.now()
    gapMs = Math.max(gapMs, now - last)
    last = now
  }, 20)
  try {
    const value = await body()
    gapMs = Math.max(gapMs, performance.now() - last)
    return { value, gapMs }
  } finally {
    clearInterval(timer)
  }
}

describe("forge_search on hostile input", () => {
  const checks = searchChecks()
  afterAll(() => checks.close())

  for (const [name, check] of Object.entries(checks.cases)) {
    it(name, async () => {
      const { gapMs } = await withTicks(check)
      // Generous: a busy 2-core host delays a 20 ms tick by tens of ms; a match on the event loop by seconds.
      expect(gapMs).toBeLessThan(1_000)
    }, 30_000)
  }

  it("finds what grep finds on a small tree, .gitignore honoured", async () => {
    const root = checks.tree({
      ".gitignore": "build/\n*.log\n",
      "a.ts": "const x = 1\n// TODO one\nfoo()\n",
      "src/b.ts": "TODO two\r\nno\r\ntodo three\r\n",
      "src/nested/c.md": "x\n\nTODO: four TODO\n",
      "src/.gitignore": "secret.txt\n",
      "src/secret.txt": "TODO hidden\n",
      "build/out.js": "TODO built\n",
      "debug.log": "TODO logged\n",
      "bin.dat": Buffer.from([0, 1, 2, 84, 79, 68, 79, 10]),
    })
    execFileSync("git", ["init", "-q", root])
    const git = execFileSync("git", ["grep", "--untracked", "-nI", "-E", "TODO|todo"], { cwd: root, encoding: "utf8" })
      .trim()
      .split("\n")
      .map((line) => line.replace(/\r$/, ""))
      .sort()
    const answer = await checks.search({ path: root, regex: "TODO|todo" })
    const found = answer.text
      .split("\n\n")
      .slice(1)
      .flatMap((group) => {
        const [file, ...lines] = group.split("\n")
        return lines.map((line) => `${file}:${line.replace(": ", ":")}`)
      })
      .sort()
    expect(found).toEqual(git)
    expect(answer.matches).toBe(4)
  })
})

it("passes the same checks inside opencode's Bun, where the JavaScript regex engine gives up on backtracking", () => {
  const { status, output } = runUnderOpencodeBun("test/integration/files/search.bun.ts", 60_000)
  expect(status, output).toBe(0)
  expect(output).toContain(`SEARCH passed=${Object.keys(searchChecks().cases).length} failed=0`)
}, 70_000)
