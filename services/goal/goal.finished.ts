import { goalStatusOf } from "../../machines/goal/goal.status"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { GoalMachine } from "../../machines/goal/goal.machine"
import { type CheckLogEntry, parseGoalDocument } from "./goal.document"
import type { GoalSnapshot } from "./goal.lifecycle"
import type { GoalFiles } from "./goal.ports"

// The session's last finished goal, for /goal: once a goal completes or is abandoned it is no longer live, and the
// user still asks how it ended. Its record says the outcome, the turns and when; its document the checks' last run.

export interface FinishedGoal {
  snapshot: GoalSnapshot
  /** When its record was last written: the moment it finished. */
  finishedAt: number
  /** The checks of the last run in its Check Log (empty when none ran), or why the document could not say. */
  lastRun: CheckLogEntry[] | { problem: string }
}

export async function lastFinishedGoal(lifecycle: Lifecycle<GoalMachine>, files: GoalFiles, sessionId: string): Promise<FinishedGoal | undefined> {
  const found = (await lifecycle.finished()).find(({ snapshot }) => snapshot.context.sessionId === sessionId && isFinished(snapshot))
  if (found === undefined) return undefined
  const { goalPath } = found.snapshot.context
  let lastRun: FinishedGoal["lastRun"]
  try {
    const text = await files.read(goalPath)
    if (text === undefined) lastRun = { problem: `its document ${goalPath} is gone` }
    else {
      const log = parseGoalDocument(text, goalPath).checkLog
      const run = log.at(-1)?.run
      lastRun = log.filter((entry) => entry.run === run)
    }
  } catch (error) {
    lastRun = { problem: `its document does not read: ${error instanceof Error ? error.message : String(error)}` }
  }
  return { snapshot: found.snapshot, finishedAt: found.updatedAt, lastRun }
}

function isFinished(snapshot: GoalSnapshot): boolean {
  const status = goalStatusOf(snapshot.value)
  return status === "completed" || status === "abandoned"
}
