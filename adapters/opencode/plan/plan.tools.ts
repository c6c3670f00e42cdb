import type { ToolDefinition } from "@opencode-ai/plugin"
import { DEFAULT_READ_LIMIT } from "../../../services/documents/document.window"
import type { PlanSummary } from "../../../services/plan/plan.queries"
import type { PlanOutcome } from "../../../services/plan/plan.service"
import type { Lazy } from "../lazy"
import type { ForgeRuntimeAccess } from "../runtime.access"
import type { HostPlansHandle } from "./plan.handle"
import { MAX_LIST_ITEMS, boundedText } from "../arg.limits"
import { type ForgeToolResult, forgeTool } from "../tool.args"
import { dialogFor } from "../tool.dialog"
import { screenText } from "../tool.screen"
import * as z from "zod"

// The plan tools. Each is a thin shell: its args are parsed by forgeTool (opencode passes them raw, without zod
// defaults), then it resolves the session the plan is bound to and lets the plan service and its machine decide.

import { PLAN_TOOL_IDS } from "../../../machines/agent.partition"

export { PLAN_TOOL_IDS }

export function createPlanTools(access: ForgeRuntimeAccess, harness: Lazy<HostPlansHandle>): Record<(typeof PLAN_TOOL_IDS)[number], ToolDefinition> {
  // The workspace opened (its plans restored) and the session the plan is bound to, then the plan harness.
  const plansFor = async (ctx: { sessionID: string }) => {
    const { session } = await access.forTool(ctx)
    return { plans: await harness.get(), session }
  }
  return {
    plan_write: forgeTool("plan_write", {
      description:
        "Create the session's plan, or rewrite its draft. The plan is stored as .opencode/plan/<date>-<slug>.md and starts as a draft: every write, edit, shell and task tool is banned in this session until the user approves it. Use <!-- forge-section --> markers before each ## Phase heading.",
      args: {
        content: boundedText("document")
          .min(1)
          .describe("Plan markdown: # Title, sections, '## Tasks' with '- [ ] 1. ...' lines, '## Acceptance Criteria' with '- ...' bullets"),
        title: boundedText("name").optional().describe("Plan title; defaults to the first # heading"),
      },
      async execute(args, ctx) {
        const { plans, session } = await plansFor(ctx)
        return withPlanTitle(plans, await plans.service.write(session, args.content, args.title))
      },
    }),
    plan_read: forgeTool("plan_read", {
      description:
        "Read the session's plan (offset/limit windows, 1-indexed lines, 2000 by default, with a next-offset notice), search it with a regex pattern, or list/search the workspace's recent plans with recent: true.",
      args: {
        offset: z.number().int().min(1).default(1).describe("Line to start from, 1-indexed"),
        limit: z.number().int().min(1).default(DEFAULT_READ_LIMIT).describe("Maximum lines to return; default 2000"),
        pattern: boundedText("pattern").optional().describe("Regex to search plan content (JavaScript syntax, no slashes or flags)"),
        recent: z.boolean().default(false).describe("List (or with pattern, search) recent workspace plans"),
        count: z.number().int().min(1).optional().describe("With recent: how many plans; default 20, at most 100"),
        path: boundedText("path").optional().describe("Read this plan document instead of the session's (must be under .opencode/plan/)"),
      },
      async execute(args, ctx) {
        const { plans, session } = await plansFor(ctx)
        const output = await plans.queries.read(session, args)
        const what = args.recent ? "Recent plans" : `Read ${output.split("\n", 1)[0]}`
        return { output, title: screenText(args.pattern === undefined ? what : `${what} for /${args.pattern}/`, 100), metadata: {} }
      },
    }),
    plan_edit: forgeTool("plan_edit", {
      description:
        "Edit the session's draft plan by exact string replacement, like the Edit tool. oldString must match exactly once unless replaceAll is true; do not include plan_read's 'N: ' line prefixes. An empty oldString creates the plan only when none exists.",
      args: {
        oldString: boundedText("document").describe("Exact text to replace, including indentation"),
        newString: boundedText("document").describe("Replacement text; must differ from oldString"),
        replaceAll: z.boolean().default(false).describe("Replace every occurrence"),
      },
      async execute(args, ctx) {
        const { plans, session } = await plansFor(ctx)
        return withPlanTitle(plans, await plans.service.edit(session, args.oldString, args.newString, args.replaceAll))
      },
    }),
    plan_approve: forgeTool("plan_approve", {
      description:
        "Ask the user to approve the session's draft plan. Opens a confirmation dialog: only the user's allow approves it. Call this only after the user has explicitly said to go ahead.",
      args: {},
      async execute(_args, ctx) {
        const { plans, session } = await plansFor(ctx)
        return withPlanTitle(plans, await plans.service.approve(session, dialogFor(ctx, "plan")))
      },
    }),
    plan_tick: forgeTool("plan_tick", {
      description: "Tick one task of the session's approved plan as done; the document records the time.",
      args: { task: z.number().int().min(1).describe("Task number as written in the plan's Tasks list") },
      async execute(args, ctx) {
        const { plans, session } = await plansFor(ctx)
        return withPlanTitle(plans, await plans.service.tick(session, args.task))
      },
    }),
    plan_close: forgeTool("plan_close", {
      description:
        "Close the session's approved plan as done. Refused until every task is ticked and every acceptance criterion has exactly one passing check with evidence; then the user confirms in a dialog.",
      args: {
        checks: z
          .array(
            z.strictObject({
              criterion: boundedText("line").min(1).describe("The acceptance criterion, as written in the plan"),
              pass: z.boolean().describe("Whether it holds"),
              evidence: boundedText("text").describe("What shows it: the command you ran and its result, the file and line"),
            }),
          )
          .min(1)
          .max(MAX_LIST_ITEMS),
      },
      async execute(args, ctx) {
        const { plans, session } = await plansFor(ctx)
        return withPlanTitle(plans, await plans.service.close(session, args.checks, dialogFor(ctx, "plan")))
      },
    }),
    plan_discard: forgeTool("plan_discard", {
      description:
        "Discard the session's plan: it becomes abandoned, or superseded when supersede names the document that takes its work over (e.g. a crew or goal file). The reason is recorded verbatim. A draft is discarded only if the user allows it in a dialog.",
      args: {
        reason: boundedText("line").optional().describe("Why the plan is dropped"),
        supersede: boundedText("path").min(1).optional().describe("Workspace path of the successor document"),
      },
      async execute(args, ctx) {
        const { plans, session } = await plansFor(ctx)
        return withPlanTitle(plans, await plans.service.discard(session, { by: "model", confirm: dialogFor(ctx, "plan") }, args.reason, args.supersede))
      },
    }),
  }
}

/** A plan tool's answer with its title (the answer's first sentence) and the plan as it now stands as metadata. */
async function withPlanTitle(plans: HostPlansHandle, outcome: PlanOutcome): Promise<ForgeToolResult> {
  const plan = await plans.queries.summaryOf(outcome.planPath)
  const metadata = plan === undefined ? { path: outcome.planPath } : planFields(plan)
  return { output: outcome.output, title: firstSentence(outcome.output), metadata }
}

function planFields(plan: PlanSummary): Record<string, string | number> {
  const fields = { plan: plan.title, path: plan.planPath, status: plan.status, tasks: `${plan.ticked}/${plan.tasks} ticked`, criteria: plan.criteria }
  return plan.pending === null ? fields : { ...fields, document: `says ${plan.pending}` }
}

/** "Plan approved: .opencode/plan/x.md" of "Plan approved: .opencode/plan/x.md. Writes are open. …". */
function firstSentence(text: string): string {
  const line = text.split("\n", 1)[0] ?? ""
  return screenText(line.match(/^(.*?\S)[.;](\s|$)/)?.[1] ?? line, 120)
}
