import type { ToolContext, ToolDefinition } from "@opencode-ai/plugin"
import * as z from "zod"
import { GOAL_TOOL_IDS } from "../../../machines/agent.partition"
import {
  CHECK_TIMEOUT_DEFAULT_S,
  CHECK_TIMEOUT_MAX_S,
  GOAL_MAX_MINUTES_CEILING as MAX_MINUTES_CEILING,
  GOAL_MAX_TURNS_CEILING as MAX_TURNS_CEILING,
  MAX_MINUTES_DEFAULT,
  MAX_TURNS_DEFAULT,
} from "../../../machines/goal/goal.gates"
import { pendingGoalDocumentNote } from "../../../machines/goal/goal.refusals"
import type { GoalContract } from "../../../services/goal/goal.contract"
import type { GoalOutcome, GoalService } from "../../../services/goal/goal.service"
import type { ForgeRuntimeAccess } from "../runtime.access"
import { MAX_LIST_ITEMS, boundedText } from "../arg.limits"
import { type ForgeToolResult, forgeTool } from "../tool.args"
import { dialogFor } from "../tool.dialog"
import { screenText } from "../tool.screen"

// The goal tools. Each is a thin shell: its args are parsed by forgeTool (opencode passes them raw), the agent
// partition is asked first, then the goal service and its machine decide.

export { GOAL_TOOL_IDS }

const check = z.union([
  z.strictObject({
    command: boundedText("command").min(1).describe("Shell command run in the workspace; passes on exit 0"),
    timeout: z
      .number()
      .int()
      .min(1)
      .max(CHECK_TIMEOUT_MAX_S)
      .optional()
      .describe(`Seconds; default ${CHECK_TIMEOUT_DEFAULT_S}, at most ${CHECK_TIMEOUT_MAX_S}`),
  }),
  z.strictObject({
    file: boundedText("path").min(1).describe("Workspace-relative file"),
    text: boundedText("line").min(1).describe("Literal text the file must contain"),
  }),
])

const budgets = {
  maxTurns: z
    .number()
    .int()
    .min(1)
    .max(MAX_TURNS_CEILING)
    .optional()
    .describe(`Continuation turns; default ${MAX_TURNS_DEFAULT}, at most ${MAX_TURNS_CEILING}`),
  maxMinutes: z
    .number()
    .int()
    .min(1)
    .max(MAX_MINUTES_CEILING)
    .optional()
    .describe(`Minutes from arming; default ${MAX_MINUTES_DEFAULT}, at most ${MAX_MINUTES_CEILING}`),
  maxCost: z.number().positive().optional().describe("USD the session may spend from arming; no limit by default"),
  maxTokens: z.number().int().positive().optional().describe("Tokens the session may spend from arming; no limit by default"),
}

export interface GoalToolsDeps {
  access: ForgeRuntimeAccess
  goals: () => Promise<GoalService>
}

export function createGoalTools(deps: GoalToolsDeps): Record<(typeof GOAL_TOOL_IDS)[number], ToolDefinition> {
  /** The service for the session the goal is bound to (forgeTool asked the partition first, before any dialog). */
  const open = async (ctx: ToolContext) => {
    const { session } = await deps.access.forTool(ctx)
    return { goals: await deps.goals(), session }
  }
  return {
    goal_write: forgeTool("goal_write", {
      description:
        "Write a goal: an objective plus checks the host runs itself. arm=true (default) asks the user in a dialog — their allow arms it and the session then works on it by itself, re-prompted at every idle until goal_complete passes or a budget runs out. arm=false queues it inert. revise=true rewrites the live goal's contract as a new revision (budgets kept unless given; earlier check results stop counting). Refused while the session has a draft plan.",
      args: {
        objective: boundedText("text").min(1).describe("What must be true when the goal is done"),
        success: z
          .array(boundedText("line").min(1))
          .max(MAX_LIST_ITEMS)
          .default([])
          .describe("Success criteria; goal_complete needs one attestation per criterion"),
        checks: z.array(check).max(MAX_LIST_ITEMS).default([]).describe("Checks the host re-runs at completion: {command, timeout?} or {file, text}"),
        constraints: z.array(boundedText("line").min(1)).max(MAX_LIST_ITEMS).default([]),
        nonGoals: z.array(boundedText("line").min(1)).max(MAX_LIST_ITEMS).default([]),
        ...budgets,
        arm: z.boolean().default(true).describe("Ask the user to arm it now (default); false queues it"),
        revise: z.boolean().default(false).describe("Rewrite the session's live goal as a new revision"),
        audit: z
          .boolean()
          .default(false)
          .describe("Completion also needs a clean audit by an auditor session Forge opens (the user's /goal --audit); fixed at the goal's birth"),
      },
      async execute(args, ctx) {
        const { goals, session } = await open(ctx)
        const contract: GoalContract = {
          objective: args.objective.trim(),
          success: args.success,
          checks: args.checks.map((c) =>
            "command" in c
              ? { kind: "command", command: c.command, timeoutS: c.timeout ?? CHECK_TIMEOUT_DEFAULT_S }
              : { kind: "contains", file: c.file, text: c.text },
          ),
          constraints: args.constraints,
          nonGoals: args.nonGoals,
          ...(args.audit ? { audit: true } : {}),
          budgets: {
            maxTurns: args.maxTurns ?? MAX_TURNS_DEFAULT,
            maxMinutes: args.maxMinutes ?? MAX_MINUTES_DEFAULT,
            maxCost: args.maxCost,
            maxTokens: args.maxTokens,
          },
        }
        if (args.revise) {
          if (args.audit)
            throw new Error("goal_write: audit is fixed when a goal is written, and a revision keeps it as it was; leave audit out of revise=true")
          const given = { maxTurns: args.maxTurns, maxMinutes: args.maxMinutes, maxCost: args.maxCost, maxTokens: args.maxTokens }
          return answer(goals, await goals.revise(session, contract, given, "goal_write"))
        }
        return answer(goals, await goals.write(session, contract, args.arm ? { by: "model", confirm: dialogFor(ctx, "goal") } : null))
      },
    }),
    goal_check: forgeTool("goal_check", {
      description:
        "Run the live goal's checks on the host (all, or the numbered ones) and record them in its Check Log. Advisory: goal_complete re-runs every check itself.",
      args: { items: z.array(z.number().int().min(1)).max(MAX_LIST_ITEMS).optional().describe("Check numbers to run; all by default") },
      async execute(args, ctx) {
        const { goals, session } = await open(ctx)
        return answer(goals, await goals.check(session, args.items))
      },
    }),
    goal_complete: forgeTool("goal_complete", {
      description:
        "Finish the live goal. The host re-runs EVERY check itself; any failure (exit code, timeout, missing file or text, a path outside the workspace) refuses, listing each failing check with its output. It also needs exactly one attestation with evidence per success criterion. Then the user confirms in a dialog, which shows the host's last run of the checks: call it right after a goal_check that passed. Without such a run the completion gate refuses it, with its own run; call it again with the same arguments. A goal written with audit: once the checks pass, an auditor session reviews the work first (this call waits for it), and a bug it records refuses the completion, listed.",
      args: {
        attestations: z
          .array(
            z.strictObject({
              criterion: boundedText("line").min(1).describe("The success criterion, as written"),
              evidence: boundedText("text").min(1).describe("What shows it holds"),
            }),
          )
          .max(MAX_LIST_ITEMS)
          .default([]),
      },
      async execute(args, ctx) {
        const { goals, session } = await open(ctx)
        return answer(goals, await goals.complete(session, args.attestations, dialogFor(ctx, "goal"), ctx.abort))
      },
    }),
    goal_pause: forgeTool("goal_pause", {
      description: "Pause the live goal: the loop stops re-prompting. Give the blocker when something outside your reach stops the work.",
      args: { blocker: boundedText("line").optional().describe("What blocks the goal (stop reason blocker); without it the stop reason is user") },
      async execute(args, ctx) {
        const { goals, session } = await open(ctx)
        return answer(goals, await goals.pause(session, "model", args.blocker))
      },
    }),
    goal_resume: forgeTool("goal_resume", {
      description:
        "Ask the user to resume the session's paused goal (or arm the oldest queued goal when the session has none), optionally with more turns or minutes.",
      args: {
        addTurns: z.number().int().min(0).max(MAX_TURNS_CEILING).optional().describe(`Turns to add (the total stays at most ${MAX_TURNS_CEILING})`),
        addMinutes: z.number().int().min(0).max(MAX_MINUTES_CEILING).optional().describe(`Minutes to add (the total stays at most ${MAX_MINUTES_CEILING})`),
        addCost: z.number().positive().optional().describe("USD to add to a goal with a cost budget"),
        addTokens: z.number().int().positive().optional().describe("Tokens to add to a goal with a token budget"),
      },
      async execute(args, ctx) {
        const { goals, session } = await open(ctx)
        return answer(goals, await goals.resume(session, { by: "model", confirm: dialogFor(ctx, "goal") }, args))
      },
    }),
    goal_discard: forgeTool("goal_discard", {
      description: "Ask the user to discard the session's goal (it becomes abandoned; its document stays).",
      args: { reason: boundedText("line").optional().describe("Why the goal is dropped") },
      async execute(args, ctx) {
        const { goals, session } = await open(ctx)
        return answer(goals, await goals.discard(session, { by: "model", confirm: dialogFor(ctx, "goal") }, args.reason))
      },
    }),
  }
}

/** A goal tool's answer; a status the document says pending the user's dialog is named after it. */
function answer(goals: GoalService, outcome: GoalOutcome): ForgeToolResult {
  const snapshot = goals.lifecycle.snapshot(outcome.goalPath)
  const note = snapshot === undefined ? "" : pendingGoalDocumentNote(snapshot)
  const output = note === "" ? outcome.output : `${outcome.output}\n\n${note}`
  const first = output.split("\n", 1)[0] ?? ""
  return { output, title: screenText(first.match(/^(.*?\S)[.;](\s|$)/)?.[1] ?? first, 120), metadata: { path: outcome.goalPath } }
}
