import type { AnyStateMachine, SnapshotFrom } from "xstate"
import type { Lifecycle } from "./lifecycle"
import type { DamagedSnapshot, LifecycleRepository } from "./lifecycle.ports"

export interface LiveRestoreReport {
  /** The instances running again in this process. */
  restored: string[]
  /** Instances that could not be restored (or only partly), with the reason; the host keeps running without them. */
  problems: { instanceId: string; problem: string }[]
}

/**
 * What a lifecycle does to an instance just restored (its record says it was taken over, a dialog that died with
 * its host is closed). A throw does not undo the restore: it is reported, and the next instance is restored.
 */
export type AfterRestore<TMachine extends AnyStateMachine> = (instanceId: string, snapshot: SnapshotFrom<TMachine>) => Promise<unknown>

/**
 * Restores every non-terminal instance of a lifecycle from its record, the one path goals, crews and loops share:
 * damaged rows and records that no longer fit the machine are reported, never run; an instance this process already
 * started or restored is left as it is. One that a refresh brought in before the restore got to it (another
 * lifecycle's step, a hook racing the start) is taken up as it stands, its follow-up included.
 */
export async function restoreLive<TMachine extends AnyStateMachine>(
  lifecycle: Lifecycle<TMachine>,
  repository: LifecycleRepository,
  afterRestore?: AfterRestore<TMachine>,
): Promise<LiveRestoreReport> {
  const report: LiveRestoreReport = { restored: [], problems: [] }
  const damaged: DamagedSnapshot[] = []
  const records = await repository.loadSnapshots({ machineId: lifecycle.machine.id, includeTerminal: false, onDamaged: (d) => damaged.push(d) })
  for (const d of damaged) report.problems.push({ instanceId: d.instanceId, problem: d.problem })
  for (const record of records) {
    let snapshot: SnapshotFrom<TMachine>
    if (lifecycle.has(record.instanceId)) {
      const absorbed = lifecycle.takeUp(record.instanceId)
      if (absorbed === undefined) continue
      snapshot = absorbed
    } else {
      const outcome = lifecycle.restore(record)
      if (outcome.kind === "unfit") {
        report.problems.push({ instanceId: record.instanceId, problem: outcome.problem })
        continue
      }
      snapshot = outcome.snapshot
    }
    try {
      await afterRestore?.(record.instanceId, snapshot)
    } catch (error) {
      report.problems.push({
        instanceId: record.instanceId,
        problem: `restored, but its record was not updated: ${error instanceof Error ? error.message : String(error)}`,
      })
    }
    report.restored.push(record.instanceId)
  }
  return report
}
