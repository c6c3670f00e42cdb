import { type DriverFacts, soleDriver } from "../../machines/driver.claim"
import type { GoalEvent, GoalMachine } from "../../machines/goal/goal.machine"
import type { DriverClaims } from "../lifecycle/driver.claim"
import { GOAL_CLAIMS } from "./goal.claims"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { LifecycleRepository } from "../lifecycle/lifecycle.ports"
import { type LiveRestoreReport, restoreLive } from "../lifecycle/lifecycle.restore.live"

/**
 * Restores every non-terminal goal of the workspace from its record: the loop resumes with its turn count, its
 * deadline and its time budget as they were. A dialog never survives its host: a goal restored mid-dialog goes back
 * to the state its status names, the dialog unanswered — unless a live process holds the goal's driver claim: that
 * process shows the dialog, and only it moves the goal.
 */
export function restoreGoals(lifecycle: Lifecycle<GoalMachine>, repository: LifecycleRepository, claims?: DriverClaims): Promise<LiveRestoreReport> {
  return restoreLive(lifecycle, repository, async (goalPath, snapshot) => {
    if (snapshot.hasTag("awaiting-user")) await takeOverDialog(lifecycle, goalPath, claims)
  })
}

/**
 * A goal found waiting on a dialog: the process that showed it is gone, so it closes unanswered and this process
 * drives the goal, unless a live process holds its driver claim (the machine's driver gate decides, on the claim as
 * read inside the claim's write). Resolves to whether the dialog was closed.
 */
export async function takeOverDialog(lifecycle: Lifecycle<GoalMachine>, goalPath: string, claims?: DriverClaims): Promise<boolean> {
  let event: GoalEvent | undefined
  // The event's time decides nothing in a dialog state.
  const may = (driver: DriverFacts) => {
    event = { type: "goal.restored", driver, now: driver.now }
    return lifecycle.can(goalPath, event)
  }
  const taken = claims === undefined ? may(soleDriver()) : (await claims.drive(GOAL_CLAIMS, goalPath, may)).taken
  if (!taken || event === undefined) return false
  await lifecycle.dispatch(goalPath, event)
  return true
}
