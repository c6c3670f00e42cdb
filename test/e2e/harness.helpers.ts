// What the harness.*.test.ts files share: where the probe plugin and the harness's own scenarios are, the timeout of a
// scenario run, how a failed run is explained, the processes a scenario may have left behind, and the schema problems
// of a scenario.
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { afterAll } from "vitest"
import { parseScenario, ScenarioFileError, type ScenarioResult } from "./index"
import { REPO_ROOT } from "./sandbox"

/** The harness's own scenarios (scenarios.test.ts leaves this folder to the harness tests). */
export const HARNESS_SCENARIOS = path.join(REPO_ROOT, "test", "e2e", "scenarios", "harness")
/** The timeout of a test that runs a scenario on the real opencode. */
export const E2E_TIMEOUT = 120_000
/** The probe plugin: one tool per harness feature. */
export const PROBE = "test/fixtures/probe-plugin/probe.ts"

/** What a failed scenario run says: its failures, then the tail of its diagnostics. */
export function explain(result: ScenarioResult): string {
  return `${result.failures.join("\n")}\n--- diagnostics (tail) ---\n${result.diagnostics.slice(-6_000)}`
}

/** Processes whose TMPDIR lies inside `root` (Linux /proc): what a scenario left running there. */
export function processesIn(root: string): string[] {
  const found: string[] = []
  for (const pid of fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const tmp = fs
        .readFileSync(`/proc/${pid}/environ`, "utf8")
        .split("\0")
        .find((v) => v.startsWith("TMPDIR="))
      if (tmp?.slice("TMPDIR=".length).startsWith(root)) found.push(`${pid}: ${fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ")}`)
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found
}

/** Processes working in `root` or below (Linux /proc): what a scenario on a shared host left running there. */
export function processesWorkingIn(root: string): string[] {
  const found: string[] = []
  for (const pid of fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`)
      if (cwd === root || cwd.startsWith(`${root}/`)) found.push(`${pid}: ${fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ")}`)
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found
}

/** The schema problems of a scenario given inline (none: an empty list). */
export function problemsOf(value: unknown): string[] {
  try {
    parseScenario(value, "inline")
  } catch (err) {
    if (err instanceof ScenarioFileError) return err.problems
    throw err
  }
  return []
}

/** A folder of the calling test file's own in the OS temp dir, removed after its tests. */
export function scratchDir(): string {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "forge-e2e-harness-test-"))
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }))
  return scratch
}
