import type { GoalAudit } from "../../machines/goal/goal.audit"
import { auditLine, findingsText } from "./goal.audit.text"
import { goalStatusOf } from "../../machines/goal/goal.status"
import type { GoalSnapshot } from "./goal.lifecycle"
import { budgetLeftText, stopReasonText } from "./goal.brief"
import type { FinishedGoal } from "./goal.finished"

// What `/goal` shows: the session's live goal (status, turns, budget, why it stopped), the last goal it finished (how it
// ended, its turns and time, its checks' last run) and the workspace queue.

export interface GoalOverviewFacts {
  live: GoalSnapshot | undefined
  finished?: FinishedGoal
  queue: readonly GoalSnapshot[]
  now: number
}

export function goalOverview({ live, finished, queue, now }: GoalOverviewFacts): string {
  const lines: string[] = []
  if (live === undefined) lines.push("No live goal in this session.")
  else {
    const { context } = live
    const status = goalStatusOf(live.value)
    lines.push(`Live goal: ${context.goalPath} [${status}] revision ${context.revision}, ${context.turnsUsed} of ${context.limits.maxTurns} turns used`)
    lines.push(`  budget left: ${budgetLeftText(context, now)}`)
    if (status === "paused") lines.push(`  paused: ${stopReasonText(context.stopReason)}${context.blocker ? ` — ${context.blocker}` : ""}`)
    const pending = context.pendingDocument ?? null
    if (pending !== null) lines.push(`  the document says ${pending}; confirm? /goal confirm (the goal stays ${status} until you do)`)
    if (context.audit !== null) lines.push(...auditLines(context.audit, live.hasTag("auditing")))
  }
  if (finished !== undefined) lines.push(...finishedLines(finished))
  if (queue.length === 0) lines.push("Queue: empty.")
  else {
    lines.push(`Queue (${queue.length}, oldest first; /goal resume arms the oldest when the session is free):`)
    for (const goal of queue) lines.push(`  - ${goal.context.goalPath} (${goal.context.contract.checks.length} checks)`)
  }
  return lines.join("\n")
}

/** A live goal's audit: where it stands, and the findings it left open. */
function auditLines(audit: GoalAudit, running: boolean): string[] {
  const now = running ? `, audit ${audit.rounds + 1} running in ${audit.session ?? "a session being opened"}` : ""
  const lines = [`  audit: ${auditLine(audit)}${now}`]
  if (audit.last !== null && audit.last.outcome !== "clean") lines.push(`  last audit ${audit.last.outcome}: ${audit.last.summary}`)
  if (audit.findings.length > 0) lines.push(`  open findings:\n${findingsText(audit.findings).replace(/^/gm, "  ")}`)
  return lines
}

function finishedLines({ snapshot, finishedAt, lastRun }: FinishedGoal): string[] {
  const { context } = snapshot
  const status = goalStatusOf(snapshot.value)
  const time = context.armedAt === null ? "never armed" : `${durationText(finishedAt - context.armedAt)} from arming to its end`
  const lines = [
    `Last finished goal: ${context.goalPath} [${status}] at ${new Date(finishedAt).toISOString()}, ${context.turnsUsed} of ${context.limits.maxTurns} turns, ${time}`,
  ]
  if (status === "abandoned" && context.reason !== null) lines.push(`  why: ${context.reason}`)
  if ("problem" in lastRun) lines.push(`  checks: not shown, ${lastRun.problem}`)
  else if (lastRun.length === 0) lines.push(`  checks: none ran (${context.contract.checks.length} declared)`)
  else {
    const passed = lastRun.filter((entry) => entry.pass).length
    lines.push(`  checks at their last run (${lastRun[0]?.at}): ${passed} of ${lastRun.length} passed`)
    for (const entry of lastRun)
      lines.push(`    ${entry.pass ? "PASS" : "FAIL"} ${entry.item}. ${entry.label} (${entry.ms} ms)${entry.pass ? "" : ` — ${entry.detail}`}`)
  }
  return lines
}

/** "under a minute", "12 min", "2 h 5 min". */
function durationText(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000)
  if (minutes === 0) return "under a minute"
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`
}
