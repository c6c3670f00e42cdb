import { workerFragment } from "../../adapters/opencode/worker/worker.fragment"
import type { SurfaceModule } from "../forge.module"

/** The forge.json workers: forge-* agents materialized at each config build, their thought level frozen per session. */
export const workersModule = {
  kind: "surface",
  scope: "host",
  name: "workers",
  toolIds: [],
  commands: [],
  fragment: (context, workers) => workerFragment(context, workers),
  load: async () => (await import("./workers.lazy")).workersParts,
} satisfies SurfaceModule<"workers">
