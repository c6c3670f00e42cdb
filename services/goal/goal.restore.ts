import type { GoalMachine } from "../../machines/goal.machine"
import { goalStateForStatus, goalStatusOf } from "../../machines/goal.status"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { DamagedSnapshot, LifecycleRepository } from "../lifecycle/lifecycle.ports"

export interface GoalRestoreReport {
  restored: string[]
  /** Instances that could not be restored, with the reason; the host keeps running without them. */
  problems: { goalPath: string; problem: string }[]
}

/**
 * Restores every non-terminal goal of the workspace from its record: the loop resumes with its turn count, its
 * deadline and its time budget as they were. A dialog never survives its host: a goal restored mid-dialog goes back
 * to the state its status names, the dialog unanswered.
 */
export async function restoreGoals(lifecycle: Lifecycle<GoalMachine>, repository: LifecycleRepository): Promise<GoalRestoreReport> {
  const report: GoalRestoreReport = { restored: [], problems: [] }
  const damaged: DamagedSnapshot[] = []
  const records = await repository.loadSnapshots({ machineId: lifecycle.machine.id, includeTerminal: false, onDamaged: (d) => damaged.push(d) })
  for (const d of damaged) report.problems.push({ goalPath: d.instanceId, problem: d.problem })
  for (const record of records) {
    if (lifecycle.has(record.instanceId)) continue
    const outcome = lifecycle.restore(record)
    if (outcome.kind === "unfit") {
      report.problems.push({ goalPath: record.instanceId, problem: outcome.problem })
      continue
    }
    const { snapshot } = outcome
    if (snapshot.hasTag("awaiting-user")) {
      const status = goalStatusOf(snapshot.value)
      await lifecycle.reconcile(record.instanceId, goalStateForStatus(status), { ...snapshot.context, pending: null }, "restore.dialog")
    }
    report.restored.push(record.instanceId)
  }
  return report
}
