import type { ToolContext, ToolDefinition } from "@opencode-ai/plugin"
import * as z from "zod"
import { LOOP_TOOL_IDS, type REVIEW_TOOL_IDS } from "../../../machines/agent.partition"
import { MAX_LOOP_SECTIONS } from "../../../machines/loop/loop.gates"
import type { LoopService } from "../../../services/loop/loop.service"
import type { ForgeRuntimeAccess } from "../runtime.access"
import { boundedText } from "../arg.limits"
import { type ForgeToolResult, forgeTool } from "../tool.args"
import { screenText } from "../tool.screen"

// The loop tools. Each is a thin shell: its args are parsed by forgeTool (opencode passes them raw), the agent
// partition is asked first, then the loop service and its machine decide.

export { LOOP_TOOL_IDS }

const text = z.string().trim().min(1).max(4_000)
/** A section's requirement, or a plan given inline: longer, still bounded (each brief carries them). */
const longText = z.string().trim().min(1).max(100_000)
const change = z.strictObject({ summary: text.describe("What changed"), reason: text.describe("Why") })
const deviation = z.strictObject({ planItem: text, actual: text, reason: text })
const verification = z.strictObject({
  command: text.describe("The command run"),
  cwd: boundedText("path").optional().describe("Where, relative to the worktree (default: its root)"),
  outcome: z.enum(["pass", "fail", "not-run"]),
  changedAfter: z.boolean().optional().describe("Whether code changed after the check ran (default false)"),
})
const finding = z.strictObject({
  severity: z.enum(["bug", "warning"]).describe("A bug sends the work back to a coder; a warning does not"),
  file: text.optional().describe("Worktree-relative file"),
  line: z.number().int().positive().optional(),
  description: text,
})
const summary = z.strictObject({
  done: z.array(text).min(1).max(100).describe("What the section delivered"),
  deviations: z.array(text).max(100).optional(),
  followUps: z.array(text).max(100).optional(),
})
const section = z.strictObject({ title: text, content: longText.describe("The executable requirement") })

export interface LoopToolsDeps {
  access: ForgeRuntimeAccess
  loops: () => Promise<LoopService>
}

export function createLoopTools(deps: LoopToolsDeps): Record<Exclude<(typeof LOOP_TOOL_IDS)[number], (typeof REVIEW_TOOL_IDS)[number]>, ToolDefinition> {
  const open = async (ctx: ToolContext) => {
    const { session } = await deps.access.forTool(ctx)
    return { loops: await deps.loops(), session }
  }
  return {
    loop_start: forgeTool("loop_start", {
      description: `Execute this session's approved plan as a loop in a new git worktree (branch forge/loop/<name>): each \`## Phase N\` is a section (at most ${MAX_LOOP_SECTIONS}); a coder session implements a section, an auditor session checks it, a bug sends it back, then a final audit of the whole. Each pass runs in a fresh session of its own; this session is told when the loop ends. Needs a git repository with a commit. Give plan to run a plan inline instead. mode "new-session" launches the plan in one fresh session instead: no worktree, no loop, not tracked by loop_status or loop_cancel.`,
      args: {
        title: text.describe("A short title for the loop's sessions"),
        plan: longText.optional().describe("A plan given inline (markdown, `## Phase N: Title` sections); default: the session's approved plan"),
        name: text.optional().describe("The loop's name (made a unique slug); default: from the title"),
        maxIterations: z.number().int().min(1).max(100).optional().describe("Passes (sessions) the loop may spend; default 15"),
        mode: z
          .enum(["loop", "new-session"])
          .optional()
          .describe('"loop" (default): a loop in a git worktree; "new-session": the plan carried out in one fresh session, no worktree, no loop'),
      },
      async execute(args, ctx) {
        const { loops, session } = await open(ctx)
        if (args.mode === "new-session" && (args.name !== undefined || args.maxIterations !== undefined))
          throw new Error('loop_start: name and maxIterations are a loop\'s; mode "new-session" runs no loop. Leave them out, or use mode "loop".')
        return answer(args.mode === "new-session" ? await loops.launch(session, args) : await loops.start(session, args))
      },
    }),
    loop_status: forgeTool("loop_status", {
      description:
        "List the workspace's loops, or show one (name) in detail: its phase, sections, sessions and how it ended. restart: start a loop that has not completed again where it stood (its plan, section progress and findings kept, its budgets new); a running loop also needs force, since its current pass is stopped. A completed loop cannot be restarted.",
      args: {
        name: text.optional().describe("The loop to show in detail, or to restart"),
        restart: z.boolean().optional().describe("Restart the named loop"),
        force: z.boolean().optional().describe("With restart: restart a running (stuck) loop, stopping its current pass"),
      },
      async execute(args, ctx) {
        const { loops } = await open(ctx)
        if (args.force === true && args.restart !== true) throw new Error("loop_status: force goes with restart: true; nothing was restarted.")
        if (args.restart !== true) return answer(await loops.status(args.name))
        if (args.name === undefined) throw new Error("loop_status: restart needs the loop's name (loop_status without arguments lists them).")
        return answer(await loops.restart(args.name, args.force === true))
      },
    }),
    loop_cancel: forgeTool("loop_cancel", {
      description: "Cancel a running loop (name, or the only running one). Its worktree and branch stay as they are.",
      args: { name: text.optional().describe("The loop to cancel"), reason: text.optional().describe("Why (recorded)") },
      async execute(args, ctx) {
        const { loops, session } = await open(ctx)
        return answer(await loops.cancel(session, args.name, args.reason ?? "by request"))
      },
    }),
    loop_handoff: forgeTool("loop_handoff", {
      description:
        "Record this loop pass's handoff, then end your turn (only the loop's current session may call it; the loop applies it when the turn ends, and the last call of a turn wins). Coder (coding, final fix): changes [{summary, reason}] (at least one), deviations, verification [{command, cwd, outcome, changedAfter}] (at least one). Auditor (section or final audit): findings [{severity bug|warning, file, line, description}] (empty when clean) and, for a clean section audit, summary {done, deviations, followUps}; a summary is forbidden while a bug remains.",
      args: {
        changes: z.array(change).max(100).optional().describe("Coder: what changed and why"),
        deviations: z.array(deviation).max(100).optional().describe("Coder: where the work departs from the section"),
        verification: z.array(verification).max(100).optional().describe("Coder: the checks run"),
        findings: z.array(finding).max(100).optional().describe("Auditor: what is wrong (empty: nothing)"),
        summary: summary.optional().describe("Auditor: the clean section's summary"),
        notes: z.string().max(4_000).optional().describe("Free text for either role"),
      },
      async execute(args, ctx) {
        const { loops, session } = await open(ctx)
        return answer(await loops.handoff(session, args))
      },
    }),
    loop_complete: forgeTool("loop_complete", {
      description:
        "The post-action pass of a loop only (after the final audit is clean): end the loop with what the pass did. outcome completed or completed_with_issues completes the loop; failed ends it as errored. It is that pass's only exit (loop_handoff is refused there), and refused in every other phase. Applied when your turn ends.",
      args: {
        outcome: z.enum(["completed", "completed_with_issues", "failed"]).describe("How the loop ends"),
        steps: z.array(text).min(1).max(100).describe("What this pass did"),
        followUps: z.array(text).max(100).optional().describe("What is left for later"),
        notes: text.optional(),
      },
      async execute(args, ctx) {
        const { loops, session } = await open(ctx)
        return answer(await loops.complete(session, args))
      },
    }),
    section_read: forgeTool("section_read", {
      description:
        "A pass of a loop only: read its plan's sections and where they stand, changing nothing. Without arguments, the lowest-index section not done; section_index (0-based) names one; pending_suffix: true gives every section after the current one (from_index and each section's index, title, content, status), as an auditor checks before loop_adjust. Not both.",
      args: {
        section_index: z.number().int().min(0).max(MAX_LOOP_SECTIONS).optional().describe("0-based index of the section to read"),
        pending_suffix: z.boolean().optional().describe("Every section after the current one, instead of one section"),
      },
      async execute(args, ctx) {
        const { loops, session } = await open(ctx)
        const output = await loops.sectionRead(session, { sectionIndex: args.section_index, pendingSuffix: args.pending_suffix })
        return { output, title: `section_read${args.pending_suffix === true ? " (pending sections)" : ""}`, metadata: {} }
      },
    }),
    loop_adjust: forgeTool("loop_adjust", {
      description:
        "Auditor of a section audit only, before its handoff: amend the plan, with a rationale, never to weaken it. currentSection edits the section under audit in place (its progress kept; if the change needs code, also hand off a bug finding so a coder does it); sections replaces every section after it (the whole pending suffix: an omitted one is dropped; read it first with section_read {pending_suffix: true}). One of them or both. Each amendment is recorded with the sections before and after it.",
      args: {
        currentSection: section.optional().describe("The section under audit, as it now reads"),
        sections: z.array(section).max(MAX_LOOP_SECTIONS).optional().describe("The new pending sections after it, in order"),
        rationale: text.describe("Why the plan changes"),
      },
      async execute(args, ctx) {
        const { loops, session } = await open(ctx)
        return answer(await loops.adjust(session, { current: args.currentSection, pending: args.sections }, args.rationale))
      },
    }),
  }
}

/** A loop tool's result: the answer, its first line the tool's title. */
export function answer(output: string): ForgeToolResult {
  return { output, title: screenText(output.split("\n", 1)[0] ?? "", 120), metadata: {} }
}
