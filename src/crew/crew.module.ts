import { crewFragment } from "../../adapters/opencode/crew/crew.fragment"
import { CREW_TOOL_IDS } from "../../machines/agent.partition"
import type { LifecycleModule } from "../forge.module"

/** Crews: parallel subagent waves with a declared plan and a verdict cross-check at close. */
export const crewModule: LifecycleModule<"crew"> = {
  kind: "lifecycle",
  name: "crew",
  toolIds: CREW_TOOL_IDS,
  commands: ["crew"],
  fragment: (context, crews) => crewFragment(context, crews),
  load: async () => (await import("./crew.lazy")).crewParts,
}
