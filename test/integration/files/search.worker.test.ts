// search.worker.generated.ts is forge_search's worker thread bundled as one string (the plugin ships as one file with
// no worker file beside it): it must be what the sources bundle to now.
import { readFileSync } from "node:fs"
import { expect, it } from "vitest"
import { GENERATED_WORKER, searchWorkerModule } from "../../../scripts/embed-search-worker"

it("search.worker.generated.ts is up to date with its sources (run `npm run search:worker` if not)", async () => {
  expect(readFileSync(GENERATED_WORKER, "utf8") === (await searchWorkerModule())).toBe(true)
}, 30_000)
