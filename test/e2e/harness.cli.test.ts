// Tests of the e2e harness's command line (test/e2e/cli.ts): scenario paths resolved from the cwd, and its exit codes.
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { HARNESS_SCENARIOS, scratchDir } from "./harness.helpers"
import { REPO_ROOT } from "./sandbox"

const scratch = scratchDir()

describe.concurrent("e2e harness", () => {
  it("CLI: resolves a scenario path from the cwd, exits 2 for an invalid file and 1 for a failed check", () => {
    const cli = path.join(REPO_ROOT, "test", "e2e", "cli.ts")
    const tsx = path.join(REPO_ROOT, "node_modules", ".bin", "tsx")
    fs.copyFileSync(path.join(HARNESS_SCENARIOS, "unknown-key.json"), path.join(scratch, "bad.json"))
    fs.writeFileSync(
      path.join(scratch, "missing-plugin.json"),
      JSON.stringify({ install: "single-file", pluginPath: "does/not/exist.js", turns: [{ prompt: "x" }] }),
    )
    const bad = spawnSync(tsx, [cli, "bad.json"], { cwd: scratch, encoding: "utf8" })
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain(`${path.join(scratch, "bad.json")}: invalid scenario`)
    expect(bad.stderr).toContain('turns[0].promt: unknown key "promt"')
    const failing = spawnSync(tsx, [cli, "missing-plugin.json"], { cwd: scratch, encoding: "utf8" })
    expect(failing.status).toBe(1)
    expect(failing.stdout).toContain(`FAIL setup — plugin for install "single-file" not found at ${path.join(REPO_ROOT, "does/not/exist.js")}`)
    expect(failing.stdout.trimEnd().split("\n").at(-1)).toBe("0 passed, 1 failed")
  }, 30_000)
})
