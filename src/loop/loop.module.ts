import { loopFragment } from "../../adapters/opencode/loop/loop.fragment"
import { LOOP_TOOL_IDS } from "../../machines/agent.partition"
import type { LifecycleModule } from "../forge.module"

/** Loops: an approved plan coded and audited section by section in a git worktree, advanced only by handoffs. */
export const loopModule: LifecycleModule<"loop"> = {
  kind: "lifecycle",
  name: "loop",
  toolIds: LOOP_TOOL_IDS,
  commands: ["review", "review-plan"],
  fragment: (context, loops) => loopFragment(context, loops),
  load: async () => (await import("./loop.lazy")).loopParts,
}
