import { completionFragment } from "../../adapters/opencode/completion.fragment"
import { COMPLETION_TOOL_IDS } from "../../machines/agent.partition"
import type { SurfaceModule } from "../forge.module"

/** attempt_completion: a session's claim of done, held to its goal's and its loop's gates. */
export const completionModule: SurfaceModule<"completion"> = {
  kind: "surface",
  scope: "workspace",
  name: "completion",
  toolIds: COMPLETION_TOOL_IDS,
  commands: [],
  fragment: (context, completions) => completionFragment(context, completions),
  load: async () => (await import("./completion.lazy")).completionParts,
}
