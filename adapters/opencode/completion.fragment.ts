import * as z from "zod"
import { COMPLETION_TOOL_IDS } from "../../machines/agent.partition"
import type { Completions } from "../../services/completion/completion"
import type { ForgeFragment, FragmentContext } from "./forge.fragment"
import type { Lazy } from "./lazy"
import { forgeTool } from "./tool.args"
import { dialogFor } from "./tool.dialog"
import { screenText } from "./tool.screen"

/** attempt_completion: the result of the task, through the session goal's completion gate when one is active. */
export function completionFragment(ctx: FragmentContext, completions: Lazy<Completions>): ForgeFragment {
  return {
    id: "completion",
    toolIds: COMPLETION_TOOL_IDS,
    tools: {
      attempt_completion: forgeTool("attempt_completion", {
        description:
          "Present the result of the task when it is done. Under an active goal of this session it is the goal's completion: the host re-runs every check itself (any failure refuses) with your result as the evidence for each success criterion, then the user confirms. Otherwise the result is recorded and your turn ends.",
        args: { result: z.string().min(1).describe("What was done, and what shows it") },
        async execute(args, tool) {
          const { session } = await ctx.access.forTool(tool)
          const output = await (await completions.get()).attempt(session, args.result, dialogFor(tool, "goal"))
          return { output, title: screenText(output.split("\n", 1)[0] ?? "", 120), metadata: { session } }
        },
      }),
    },
  }
}
