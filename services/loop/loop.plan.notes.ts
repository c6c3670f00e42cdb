import { loopStatusOf } from "../../machines/loop/loop.status"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { LoopMachine } from "../../machines/loop/loop.machine"
import { loopLineText } from "./loop.text"

// What /plan says of the loops a plan ran: after a loop the plan stays approved with its tasks unticked, and the user
// needs to know why and what to do next. Said from the loops' records, so any process says it, after restarts too.

export async function loopPlanNotes(lifecycle: Lifecycle<LoopMachine>, planPath: string): Promise<string[]> {
  await lifecycle.refresh()
  const running = [...lifecycle.instances()].map(([, snapshot]) => snapshot).filter((s) => s.hasTag("live") && s.context.planPath === planPath)
  if (running.length > 0)
    return running.map((loop) => `loop ${loopLineText(loop)}: loop_status ${loop.context.loopName} shows where it stands, loop_cancel stops it`)
  const last = (await lifecycle.finished()).find(({ snapshot }) => snapshot.context.planPath === planPath)
  if (last === undefined) return []
  const { loopName, worktree, reason, sections } = last.snapshot.context
  const status = loopStatusOf(last.snapshot.value)
  const when = new Date(last.updatedAt).toISOString()
  if (status === "completed")
    return [
      `loop ${loopName} completed it at ${when}: all ${sections.length} sections passed their audits on branch ${worktree.branch}. Next: review and merge that branch, then have the plan's tasks ticked and close it with plan_close (or /plan discard it).`,
    ]
  const done = sections.filter((s) => s.status === "done").length
  return [
    `loop ${loopName} ${status} at ${when} (${reason ?? "no reason recorded"}), ${done} of ${sections.length} sections done; what it did is on branch ${worktree.branch}. Next: loop_status ${loopName} says more; run the plan again with loop_start, or carry on in a session.`,
  ]
}
