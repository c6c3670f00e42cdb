import path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { runScenario, scenarioFiles } from "./index"

// Every scenario file of the plugin's own folders, one real opencode at a time. The install scenarios load
// dist/ (npm test builds it first).

for (const folder of ["plan", "goal", "crew", "files", "jobs", "watchdog", "install"]) {
  describe.sequential(`${folder} scenarios`, () => {
    for (const file of scenarioFiles(fileURLToPath(new URL(`./scenarios/${folder}/`, import.meta.url)))) {
      it(path.basename(file), async () => {
        const result = await runScenario(file)
        expect(result.failures, result.diagnostics.slice(-6000)).toEqual([])
      }, 180_000)
    }
  })
}
