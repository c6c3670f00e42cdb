import type { LoopMachine } from "../../machines/loop.machine"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { DamagedSnapshot, LifecycleRepository } from "../lifecycle/lifecycle.ports"

export interface LoopRestoreReport {
  restored: string[]
  /** Loops that could not be restored, with the reason; the host keeps running without them. */
  problems: { loopName: string; problem: string }[]
}

/** Restores every running loop of the workspace from its record (the service's `resumeAll` then takes their passes up). */
export async function restoreLoops(lifecycle: Lifecycle<LoopMachine>, repository: LifecycleRepository): Promise<LoopRestoreReport> {
  const report: LoopRestoreReport = { restored: [], problems: [] }
  const damaged: DamagedSnapshot[] = []
  const records = await repository.loadSnapshots({ machineId: lifecycle.machine.id, includeTerminal: false, onDamaged: (d) => damaged.push(d) })
  for (const d of damaged) report.problems.push({ loopName: d.instanceId, problem: d.problem })
  for (const record of records) {
    if (lifecycle.has(record.instanceId)) continue
    const outcome = lifecycle.restore(record)
    if (outcome.kind === "unfit") report.problems.push({ loopName: record.instanceId, problem: outcome.problem })
    else report.restored.push(record.instanceId)
  }
  return report
}
