import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { closeSharedHosts, loadScenarioFile, runScenario, scenarioFiles, scenarioHost } from "./index"

// Every scenario file of the plugin's own folders against real opencode, two at a time (the machine's lanes decide
// how many opencode run at once). The install scenarios load dist/ (npm test builds it first). Every folder of
// scenarios/ is run but harness/ (the harness.*.test.ts files run those), so a new lifecycle's folder is never left out
// by a list.

const SCENARIOS = fileURLToPath(new URL("./scenarios/", import.meta.url))
const folders = fs
  .readdirSync(SCENARIOS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== "harness")
  .map((entry) => entry.name)
  .sort()

/**
 * The order scenarios start in: those that boot opencode themselves (the TUI, restarts, several servers, run mode)
 * first, since they take longest, then those a shared host serves; by name within each kind.
 */
function startOrder(file: string): number {
  const { scenario } = loadScenarioFile(file)
  if (scenario.mode === "tui") return 0
  if (scenarioHost(scenario) === "own") return scenario.mode === "serve" ? 1 : 2
  return 3
}

const files = folders
  .flatMap((folder) => scenarioFiles(path.join(SCENARIOS, folder)))
  .map((file) => ({ file, name: path.relative(SCENARIOS, file), order: startOrder(file) }))
  .sort((a, b) => a.order - b.order || a.name.localeCompare(b.name))

/**
 * opencode's runtime (Bun) panicking is no verdict on the plugin: it is rare (a bus error inside Bun, seen once in
 * many runs) and never caused by the scenario's own steps. Such a run is said aloud and run once more; a scenario
 * that fails again, or fails for any other reason, fails.
 */
const BUN_PANIC = /oh no: Bun has crashed|panic\(main thread\)/

afterAll(closeSharedHosts)

describe("scenario folders", () => {
  it("holds the lifecycles' folders", () => {
    expect(folders).toEqual(expect.arrayContaining(["crew", "files", "goal", "install", "job", "loop", "plan", "watchdog"]))
  })
})

describe.concurrent("scenarios", () => {
  for (const { file, name } of files) {
    it(name, async () => {
      let result = await runScenario(file)
      if (result.failures.length > 0 && BUN_PANIC.test(result.diagnostics)) {
        console.warn(`${name}: opencode's Bun crashed (a panic in the runtime); the scenario runs once more`)
        result = await runScenario(file)
      }
      // The failed checks first: a summary that shows an error's first lines then names them, not the log's tail.
      const failed = result.failures.map((f) => `- ${f.length > 400 ? `${f.slice(0, 400)}…` : f}`).join("\n")
      expect(result.failures, `${failed}\n--- diagnostics ---\n${result.diagnostics.slice(-6000)}`).toEqual([])
    }, 360_000)
  }
})
