import * as z from "zod"
import { COMPLETION_TOOL_IDS } from "../../machines/agent.partition"
import type { Completions } from "../../services/completion/completion"
import type { ForgeFragment, FragmentContext } from "./forge.fragment"
import type { Lazy } from "./lazy"
import { forgeTool } from "./tool.args"
import { dialogFor } from "./tool.dialog"
import { screenText } from "./tool.screen"

/** The longest result: a presentation in a few lines, not a report (it is kept in the ledger and shown on the call's line). */
export const RESULT_MAX_CHARS = 20_000

/** attempt_completion: the result of the task, through the session goal's completion gate when one is active. */
export function completionFragment(ctx: FragmentContext, completions: Lazy<Completions>): ForgeFragment {
  return {
    id: "completion",
    toolIds: COMPLETION_TOOL_IDS,
    tools: {
      attempt_completion: forgeTool("attempt_completion", {
        description:
          "Present the result of the task when it is done. Under an active goal of this session it is the goal's completion: the host re-runs every check itself (any failure refuses) with your result as the evidence for each success criterion, then the user confirms in a dialog showing the host's last run (without a passing one the completion gate refuses it with its own run: call it again). Otherwise the result is recorded, and you then tell the user the result in a few lines and end your turn (the call itself does not end it).",
        args: {
          result: z.string().trim().min(1).max(RESULT_MAX_CHARS).describe(`What was done, and what shows it (at most ${RESULT_MAX_CHARS} characters)`),
        },
        async execute(args, tool) {
          const { session } = await ctx.access.forTool(tool)
          const output = await (await completions.get()).attempt(session, args.result, dialogFor(tool, "goal"))
          // The title says what happened: the answer's first sentence, not what the model is told to do next.
          const happened = (output.split("\n", 1)[0] ?? "").split(". ", 1)[0] ?? ""
          return { output, title: screenText(happened.replace(/\.$/, ""), 120), metadata: { session } }
        },
      }),
    },
  }
}
