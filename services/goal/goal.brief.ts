import type { GoalStopReason, GoalTerms } from "../../machines/goal/goal.gates"
import type { GoalContext } from "../../machines/goal/goal.machine"
import { checkLabel } from "./goal.contract.text"
import type { CheckLogEntry, GoalDocument } from "./goal.document"

// The loop's words to the model. The brief carries everything a continuation turn needs — the contract, the budget
// left and the checks that failed last with their output — so the model never has to rediscover a failure.

export const GOAL_CONTINUE_MARKER = "[forge:goal-continue]"
export const GOAL_PAUSED_MARKER = "[forge:goal-paused]"

/**
 * The goal owns the crew layer: its arm is the user's authorization, so under it a crew registers born armed and
 * closes or re-shards without a dialog, and no human turn is needed between waves.
 */
const GOAL_CREW_DIRECTIVE =
  'You own the crew layer under this goal: for parallel subagent work register a crew with crew_begin {objective, subtasks, execution: "waves"} in one call (born armed), run its waves, and close it with crew_close (verdicts) or re-shard it (crew_close {abandon: true, reason}, then a fresh crew_begin) — no dialog, no user turn needed.'

/** The latest entry per check of the current revision that failed (a later pass clears it). */
export function latestFailures(document: GoalDocument, revision: number): CheckLogEntry[] {
  const latest = new Map<number, CheckLogEntry>()
  for (const entry of document.checkLog) if (entry.revision === revision) latest.set(entry.item, entry)
  return [...latest.values()].filter((entry) => !entry.pass).sort((a, b) => a.item - b.item)
}

export function budgetLeftText(context: GoalContext, now: number): string {
  const { limits, turnsUsed, armedAt, spend } = context
  const parts = [`${Math.max(limits.maxTurns - turnsUsed, 0)} of ${limits.maxTurns} turns`]
  const minutes = armedAt === null ? limits.maxMinutes : limits.maxMinutes - (now - armedAt) / 60_000
  parts.push(`${Math.max(Math.floor(minutes), 0)} of ${limits.maxMinutes} minutes`)
  if (limits.maxCost !== null) parts.push(`$${Math.max(limits.maxCost - spend.cost, 0).toFixed(2)} of $${limits.maxCost.toFixed(2)}`)
  if (limits.maxTokens !== null) parts.push(`${Math.max(limits.maxTokens - spend.tokens, 0)} of ${limits.maxTokens} tokens`)
  return parts.join(", ")
}

function list(items: readonly string[]): string {
  return items.length === 0 ? "- (none)" : items.map((item) => `- ${item}`).join("\n")
}

/**
 * The contract as a brief lays it out (the continuation's, the auditor's): objective, criteria, checks, constraints and
 * non-goals, each under its heading and followed by a blank line; the criteria's and the checks' headings are the
 * brief's own.
 */
export function contractLines(contract: GoalTerms, headings: { success: string; checks: string }): string[] {
  return [
    "Objective:",
    contract.objective,
    "",
    headings.success,
    list(contract.success),
    "",
    headings.checks,
    contract.checks.map((check, i) => `${i + 1}. ${check.kind === "command" ? `command \`${check.command}\`` : `contains ${checkLabel(check)}`}`).join("\n"),
    "",
    "Constraints:",
    list(contract.constraints),
    "",
    "Non-goals:",
    list(contract.nonGoals),
    "",
  ]
}

export function continuationBrief({ context, document, now }: { context: GoalContext; document: GoalDocument; now: number }): string {
  const { contract } = document
  const failures = latestFailures(document, context.revision)
  const lines = [
    `${GOAL_CONTINUE_MARKER} Goal ${context.goalPath} — continuation turn ${context.turnsUsed} of ${context.limits.maxTurns} (revision ${context.revision}).`,
    "",
    ...contractLines(contract, {
      success: "Success criteria (goal_complete needs one attestation with evidence for each):",
      checks: "Checks (the host re-runs every one itself at goal_complete; all must pass):",
    }),
    `Budget left: ${budgetLeftText(context, now)}.`,
  ]
  if (failures.length > 0) {
    lines.push("", `Checks that failed in their latest run (revision ${context.revision}):`)
    for (const f of failures) lines.push(`- check ${f.item} \`${f.label}\` (${f.at}): ${f.detail || "failed"}`)
  }
  // Job wakes due on this idle ride with the brief: one prompt per idle.
  for (const wake of context.wakes) lines.push("", wake)
  lines.push(
    "",
    "Take the next step toward the objective. goal_check runs the checks and shows where they stand. When every check passes and every criterion holds, call goal_complete with one attestation per criterion, right after the goal_check that passed (the user's dialog shows that run). If something outside your reach blocks you, call goal_pause with the blocker instead of trying again.",
    "",
    GOAL_CREW_DIRECTIVE,
  )
  return lines.join("\n")
}

const STOP_WORDS: Record<GoalStopReason, string> = {
  user: "the user paused it",
  blocker: "it is blocked",
  "no-progress": "two continuation turns in a row did nothing (no write, shell run, check or plan tick)",
  "budget-turns": "its turn budget is spent",
  "budget-time": "its time budget is spent",
  "budget-cost": "its cost budget is spent",
  "budget-tokens": "its token budget is spent",
  "draft-conflict": "a draft plan in this session bans writes",
  "transport-failures": "the continuation prompt could not be sent three times in a row",
}

export function stopReasonText(reason: GoalStopReason | null): string {
  return reason === null ? "paused" : STOP_WORDS[reason]
}

export function wrapUpBrief(context: GoalContext): string {
  return (
    `${GOAL_PAUSED_MARKER} Goal ${context.goalPath} is paused: ${stopReasonText(context.stopReason)} (stop reason ${context.stopReason ?? "none"}, ` +
    `${context.turnsUsed} of ${context.limits.maxTurns} turns used). Do not go on with the work. In a few lines, tell the user what is done, ` +
    "what remains and which checks still fail, and that /goal resume continues it (goal_resume may add turns, minutes, cost or tokens)."
  )
}

/** The live goal in a compaction's context: the summary keeps its path, status and turns, and where to read the rest. */
export function compactionBrief(context: GoalContext, document: string): string {
  const status = context.stopReason === null ? "active" : `paused (${stopReasonText(context.stopReason)})`
  return [
    `This session works on a Forge goal: ${context.goalPath}, ${status}, revision ${context.revision}, ${context.turnsUsed} of ${context.limits.maxTurns} continuation turns used.`,
    "Keep its path and status in the summary. The goal document as it stands:",
    document,
  ].join("\n")
}
