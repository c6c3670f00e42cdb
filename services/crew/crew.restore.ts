import type { CrewMachine } from "../../machines/crew/crew.machine"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { LifecycleRepository } from "../lifecycle/lifecycle.ports"
import { type LiveRestoreReport, restoreLive } from "../lifecycle/lifecycle.restore.live"

/**
 * Restores every live crew of the workspace from its record (the anchor's crews died with their host; these do not):
 * its belt holds again at once, and its record says it was taken over. A dialog never survives its host: a crew
 * restored mid-dialog goes back to pending or executing, the dialog unanswered.
 */
export function restoreCrews(lifecycle: Lifecycle<CrewMachine>, repository: LifecycleRepository): Promise<LiveRestoreReport> {
  return restoreLive(lifecycle, repository, (crewPath) => lifecycle.dispatch(crewPath, { type: "crew.restored" }))
}
