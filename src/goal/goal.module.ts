import { goalFragment } from "../../adapters/opencode/goal/goal.fragment"
import { GOAL_TOOL_IDS } from "../../machines/agent.partition"
import type { LifecycleModule } from "../forge.module"

/** Goals: an objective with machine-checkable checks; only the host, re-running every check, declares it complete. */
export const goalModule: LifecycleModule<"goal"> = {
  kind: "lifecycle",
  name: "goal",
  toolIds: GOAL_TOOL_IDS,
  commands: ["goal"],
  fragment: (context, goals) => goalFragment(context, goals),
  load: async () => (await import("./goal.lazy")).goalParts,
}
