// The process adapter under opencode's own Bun: the opencode binary becomes the Bun it embeds (BUN_BE_BUN=1) and
// runs test/fixtures/process/bun-check.ts (spawn, tree kill, fence with a SIGKILLed Bun host, exit matrix, pattern
// worker, log reader), which reports how many cases passed.
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import path from "node:path"
import { expect, it } from "vitest"
import { repoRoot } from "./process.helpers"

const opencode = path.join(repoRoot, "node_modules/opencode-linux-x64/bin/opencode")
const script = "test/fixtures/process/bun-check.ts"

it("passes every process adapter check inside opencode's Bun", () => {
  const expected = [...readFileSync(path.join(repoRoot, script), "utf8").matchAll(/^ {2}async "/gm)].length
  const result = spawnSync(opencode, [script], {
    cwd: repoRoot,
    env: { ...process.env, BUN_BE_BUN: "1" },
    encoding: "utf8",
    timeout: 25_000,
  })
  const output = `${result.stdout}\n${result.stderr}`
  expect(result.error, output).toBeUndefined()
  expect(result.status, output).toBe(0)
  expect(output).toContain(`CHECK runtime=bun passed=${expected} failed=0`)
  expect(expected).toBeGreaterThanOrEqual(7)
})
