import type { CrewMachine } from "../../machines/crew.machine"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { DamagedSnapshot, LifecycleRepository } from "../lifecycle/lifecycle.ports"

export interface CrewRestoreReport {
  restored: string[]
  /** Instances that could not be restored, with the reason; the host keeps running without them. */
  problems: { crewPath: string; problem: string }[]
}

/**
 * Restores every live crew of the workspace from its record (the anchor's crews died with their host; these do not):
 * its belt holds again at once, and its record says it was taken over. A dialog never survives its host: a crew
 * restored mid-dialog goes back to pending or executing, the dialog unanswered.
 */
export async function restoreCrews(lifecycle: Lifecycle<CrewMachine>, repository: LifecycleRepository): Promise<CrewRestoreReport> {
  const report: CrewRestoreReport = { restored: [], problems: [] }
  const damaged: DamagedSnapshot[] = []
  const records = await repository.loadSnapshots({ machineId: lifecycle.machine.id, includeTerminal: false, onDamaged: (d) => damaged.push(d) })
  for (const d of damaged) report.problems.push({ crewPath: d.instanceId, problem: d.problem })
  for (const record of records) {
    if (lifecycle.has(record.instanceId)) continue
    const outcome = lifecycle.restore(record)
    if (outcome.kind === "unfit") {
      report.problems.push({ crewPath: record.instanceId, problem: outcome.problem })
      continue
    }
    try {
      await lifecycle.dispatch(record.instanceId, { type: "crew.restored" })
    } catch (error) {
      // The record could not take its History line (a missing file): the crew is restored all the same.
      report.problems.push({
        crewPath: record.instanceId,
        problem: `restored, but its record was not updated: ${error instanceof Error ? error.message : String(error)}`,
      })
    }
    report.restored.push(record.instanceId)
  }
  return report
}
