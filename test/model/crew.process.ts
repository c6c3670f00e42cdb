import type { CrewBirthFacts } from "../../machines/crew/crew.gates"
import { FsCrewFiles } from "../../adapters/workspace/crew.files"
import { defineCrewLifecycle } from "../../services/crew/crew.lifecycle"
import type { CrewRoster, CrewRosterSource } from "../../services/crew/crew.ports"
import { CrewService } from "../../services/crew/crew.service"
import { type OpenedWorkspace, composeWorkspace } from "../../src/runtime"
import { memoryLogger } from "../integration/plan/plan.helpers"
import type { FakeClock } from "./goal.fakes"

// One opencode process of the crew SUT on the workspace: the real CrewService on the workspace's one LifecycleHost,
// writing real crew records through FsCrewFiles; fakes only for the clock, the roster and the goal's governance.

/** The roster a path's birth facts name: two dispatchable forge-* workers in the project's pool, or none. */
export function rosterOf(workers: CrewBirthFacts["workers"]): CrewRosterSource {
  const text =
    workers.dispatchable === 0
      ? "(no forge-* worker)"
      : "project (.opencode/forge.json, primary):\n- forge-coder: writes and runs code\n- forge-research: reads and reports"
  const roster: CrewRoster = { text, dispatchable: workers.dispatchable, findings: workers.findings }
  return { roster: async () => roster }
}

/** Whether an active goal governs the session: the SUT sets it from each event's `governed` before the call. */
export interface Governance {
  governs: boolean
}

/** One opencode process on the workspace: the parts a restart replaces (the workspace and its database stay). */
export interface CrewProcess {
  rt: OpenedWorkspace
  service: CrewService
}

/** A process on the workspace: composed on the folder (its database), the crew lifecycle defined on its one host. */
export async function openCrewProcess(dir: string, clock: FakeClock, goal: Governance, roster: CrewRosterSource): Promise<CrewProcess> {
  // As src/crew/crew.lazy.ts composes the harness on the workspace's one host, with the edges swapped for the fakes.
  const log = memoryLogger()
  const workspace = composeWorkspace({ workspace: dir, clock, log })
  const files = new FsCrewFiles(dir)
  const lifecycle = defineCrewLifecycle(workspace.host, { files, clock })
  const service = new CrewService({ lifecycle, files, clock, log, roster, isGoverned: async () => goal.governs })
  const rt = await workspace.open()
  return { rt, service }
}
