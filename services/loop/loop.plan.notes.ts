import { loopStatusOf } from "../../machines/loop/loop.status"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { LoopMachine } from "../../machines/loop/loop.machine"
import type { LoopSnapshot } from "./loop.lifecycle"
import { loopLineText } from "./loop.text"

// What /plan says of the loops a plan ran: after a loop the plan stays approved with its tasks unticked, and the user
// needs to know why and what to do next. Said from the loops' records, so any process says it, after restarts too.

/** The loops of each of `planPaths`: read once (one refresh, one read of the finished records) for them all. */
export async function loopPlanNotes(lifecycle: Lifecycle<LoopMachine>, planPaths: readonly string[]): Promise<Map<string, string[]>> {
  await lifecycle.refresh()
  const wanted = new Set(planPaths)
  const notes = new Map<string, string[]>()
  for (const [, loop] of lifecycle.instances()) {
    const { planPath, loopName } = loop.context
    if (!loop.hasTag("live") || planPath === null || !wanted.has(planPath)) continue
    notes.set(planPath, [...(notes.get(planPath) ?? []), `loop ${loopLineText(loop)}: loop_status ${loopName} shows where it stands, loop_cancel stops it`])
  }
  // A plan no loop runs now: how its last loop ended (the records come newest first).
  for (const { snapshot, updatedAt } of await lifecycle.finished()) {
    const { planPath } = snapshot.context
    if (planPath === null || !wanted.has(planPath) || notes.has(planPath)) continue
    notes.set(planPath, [endedNote(snapshot, updatedAt)])
  }
  return notes
}

function endedNote(snapshot: LoopSnapshot, updatedAt: number): string {
  const { loopName, worktree, reason, sections } = snapshot.context
  const status = loopStatusOf(snapshot.value)
  const when = new Date(updatedAt).toISOString()
  if (status === "completed")
    return `loop ${loopName} completed it at ${when}: all ${sections.length} sections passed their audits on branch ${worktree.branch}. Next: review and merge that branch, then have the plan's tasks ticked and close it with plan_close (or /plan discard it).`
  const done = sections.filter((s) => s.status === "done").length
  return `loop ${loopName} ${status} at ${when} (${reason ?? "no reason recorded"}), ${done} of ${sections.length} sections done; what it did is on branch ${worktree.branch}. Next: loop_status ${loopName} says more; run the plan again with loop_start, or carry on in a session.`
}
