import { planFragment } from "../../adapters/opencode/plan/plan.fragment"
import { PLAN_TOOL_IDS } from "../../machines/agent.partition"
import type { LifecycleModule } from "../forge.module"

/** Plans: decide first, execute later; a draft bans every write and exec tool until the user approves. */
export const planModule: LifecycleModule<"plan"> = {
  kind: "lifecycle",
  name: "plan",
  toolIds: PLAN_TOOL_IDS,
  commands: ["plan"],
  fragment: (context, plans) => planFragment(context, plans),
  load: async () => (await import("./plan.lazy")).planParts,
}
