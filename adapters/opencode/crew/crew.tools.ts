import type { ToolContext, ToolDefinition } from "@opencode-ai/plugin"
import * as z from "zod"
import { pendingCrewDocumentNote } from "../../../machines/crew/crew.refusals"
import { CREW_TOOL_IDS } from "../../../machines/agent.partition"
import type { CrewOutcome, CrewService } from "../../../services/crew/crew.service"
import type { ForgeRuntimeAccess } from "../runtime.access"
import { MAX_LIST_ITEMS, boundedText } from "../arg.limits"
import { type ForgeToolResult, forgeTool } from "../tool.args"
import { dialogFor } from "../tool.dialog"
import { screenText } from "../tool.screen"

// The crew tools. Each is a thin shell: its args are parsed by forgeTool (opencode passes them raw), the agent
// partition is asked first, then the crew service and its machine decide.

export { CREW_TOOL_IDS }

const subtask = z.strictObject({
  title: boundedText("name").describe("What the subtask delivers; unique within the crew"),
  agent: boundedText("name").min(1).optional().describe("The forge-* worker meant to run it"),
  files: z
    .array(boundedText("path").min(1))
    .max(MAX_LIST_ITEMS)
    .optional()
    .describe(
      "The files this subtask owns (changes), relative to the workspace: no two subtasks own one file, so one wave's workers never write over each other",
    ),
})

const verdict = z.strictObject({
  subtask: boundedText("name").min(1).describe("The declared subtask's title, as registered"),
  verdict: z.enum(["PASS", "FAIL"]),
  evidence: boundedText("text").describe("What shows the verdict: files, command output, the worker's report"),
  failures: z.array(boundedText("text")).max(MAX_LIST_ITEMS).optional().describe("For FAIL: both failure reports, the first attempt's and the retry's"),
})

export interface CrewToolsDeps {
  access: ForgeRuntimeAccess
  crews: () => Promise<CrewService>
}

export function createCrewTools(deps: CrewToolsDeps): Record<(typeof CREW_TOOL_IDS)[number], ToolDefinition> {
  /** The service for the session the crew is bound to (forgeTool asked the partition first, before any dialog). */
  const open = async (ctx: ToolContext) => {
    const { session } = await deps.access.forTool(ctx)
    return { crews: await deps.crews(), session }
  }
  return {
    crew_begin: forgeTool("crew_begin", {
      description:
        'Register a crew: the objective and its declared plan of subtasks (titles unique), optionally naming a forge-* worker per subtask and the plan it descends from (lineage). The crew PENDS: every task dispatch is refused until the user chooses. Relay the record path and the choices, and end your turn. On the user\'s choice call crew_begin again with only execution: "waves" (the user confirms in a dialog; waves start) or "goal" (the crew ends as a conversion record; draft goal_write from the subtasks). Under an active goal of this session, register with execution: "waves" in one call (born armed). Refused during a draft plan.',
      args: {
        objective: boundedText("text").optional().describe("What the crew delivers as a whole"),
        subtasks: z.array(subtask).max(MAX_LIST_ITEMS).optional().describe("The declared plan: one titled subtask per piece of work"),
        lineage: boundedText("path").optional().describe("Path of the plan (or other artifact) the crew's contract descends from"),
        execution: z.enum(["waves", "goal"]).optional().describe("The user's choice for the pending crew: waves or goal"),
      },
      async execute(args, ctx) {
        const { crews, session } = await open(ctx)
        const request = {
          objective: args.objective,
          subtasks: args.subtasks?.map((s) => ({ title: s.title, agent: s.agent ?? null, files: s.files })),
          lineage: args.lineage,
          execution: args.execution,
        }
        return answer(crews, await crews.begin(session, request, dialogFor(ctx, "crew")))
      },
    }),
    crew_close: forgeTool("crew_close", {
      description:
        "Close the armed crew with its report: one PASS/FAIL verdict with evidence per declared subtask (a FAIL with both failure reports); an undeclared subtask refuses the close. Or abandon it (abandon: true, reason) from pending or executing, without verdicts. The user confirms in a dialog (not under an active goal).",
      args: {
        report: z.array(verdict).max(MAX_LIST_ITEMS).optional().describe("One verdict per declared subtask"),
        abandon: z.boolean().default(false).describe("Abandon the crew instead of closing it (re-shard, cancel)"),
        reason: boundedText("line").optional().describe("Why the crew is abandoned"),
      },
      async execute(args, ctx) {
        const { crews, session } = await open(ctx)
        if (args.abandon) {
          if (args.report !== undefined) throw new Error("crew_close: give either a report (close) or abandon: true with a reason, not both.")
          const reason = args.reason?.trim()
          if (!reason) throw new Error("crew_close: abandon needs a reason (why the crew is dropped or re-sharded).")
          return answer(crews, await crews.abandon(session, reason, dialogFor(ctx, "crew")))
        }
        if (args.report === undefined) throw new Error("crew_close: give the report (one verdict per declared subtask), or abandon: true with a reason.")
        const report = args.report.map((v) => ({ subtask: v.subtask, verdict: v.verdict, evidence: v.evidence, failures: v.failures ?? [] }))
        return answer(crews, await crews.close(session, report, dialogFor(ctx, "crew")))
      },
    }),
  }
}

/** A crew tool's answer; a status the record says pending the user's dialog is named after it. */
function answer(crews: CrewService, outcome: CrewOutcome): ForgeToolResult {
  const snapshot = crews.lifecycle.snapshot(outcome.crewPath)
  const note = snapshot === undefined ? "" : pendingCrewDocumentNote(snapshot)
  const output = note === "" ? outcome.output : `${outcome.output}\n\n${note}`
  const first = output.split("\n", 1)[0] ?? ""
  return { output, title: screenText(first, 120), metadata: { path: outcome.crewPath } }
}
