import { partitionFragment } from "../../adapters/opencode/partition.fragment"
import type { SurfaceModule } from "../forge.module"

/** The agent partition: which agent may call which tools, a pure policy with nothing to build. */
export const partitionModule: SurfaceModule<"partition"> = {
  kind: "surface",
  scope: "none",
  name: "partition",
  toolIds: [],
  commands: [],
  fragment: (context) => partitionFragment(context),
}
