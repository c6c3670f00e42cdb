// Each *.generated.ts worker module is a worker thread bundled as one string (the plugin ships with no worker file
// beside it): it must be what its sources bundle to now.
import { readFileSync } from "node:fs"
import { expect, it } from "vitest"
import { WORKERS, generatedPath, workerModule } from "../../../scripts/embed-workers"

it.each(WORKERS.map((worker) => [worker.generated, worker] as const))(
  "%s is up to date with its sources (run `npm run workers` if not)",
  async (_, worker) => {
    expect(readFileSync(generatedPath(worker), "utf8") === (await workerModule(worker))).toBe(true)
  },
  30_000,
)
