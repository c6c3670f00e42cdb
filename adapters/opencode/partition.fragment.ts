import { partitionRefusal } from "../../machines/agent.partition"
import type { ForgeFragment, FragmentContext } from "./forge.fragment"

/**
 * The agent partition's belts, before any lifecycle's gate or dialog: an agent outside the forge family never calls a
 * Forge tool, never dispatches a forge-* worker and never writes a harness document; a worker never calls a state tool.
 * The config hook hides the same tools; this catches a host that shows them anyway. A speaker this process has not
 * heard yet is left to each Forge tool's own check of the calling agent.
 */
export function partitionFragment(ctx: FragmentContext): ForgeFragment {
  return {
    id: "partition",
    toolIds: [],
    hooks: {
      async "tool.execute.before"(input, output) {
        const refusal = partitionRefusal(ctx.speakerOf(input.sessionID), input.tool, output.args)
        if (refusal !== null) throw new Error(refusal)
      },
    },
  }
}
