import { mayDrive } from "../../machines/driver.claim"
import type { GoalMachine } from "../../machines/goal.machine"
import type { DriverClaims } from "../lifecycle/driver.claim"
import { GOAL_CLAIMS } from "./goal.claims"
import { goalStateForStatus, goalStatusOf } from "../../machines/goal.status"
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
    if (!snapshot.hasTag("awaiting-user")) return
    if (claims !== undefined && !mayDrive(await claims.facts(GOAL_CLAIMS, goalPath))) return
    const status = goalStatusOf(snapshot.value)
    await lifecycle.reconcile(goalPath, goalStateForStatus(status), { ...snapshot.context, pending: null }, "restore.dialog")
  })
}
