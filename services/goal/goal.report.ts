import { goalStatusOf } from "../../machines/goal/goal.status"
import type { GoalSnapshot } from "./goal.lifecycle"
import { budgetLeftText, stopReasonText } from "./goal.brief"

// What `/goal` shows: the session's live goal (status, turns, budget, why it stopped) and the workspace queue.

export function goalOverview({ live, queue, now }: { live: GoalSnapshot | undefined; queue: readonly GoalSnapshot[]; now: number }): string {
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
  }
  if (queue.length === 0) lines.push("Queue: empty.")
  else {
    lines.push(`Queue (${queue.length}, oldest first; /goal resume arms the oldest when the session is free):`)
    for (const goal of queue) lines.push(`  - ${goal.context.goalPath} (${goal.context.contract.checks.length} checks)`)
  }
  return lines.join("\n")
}
