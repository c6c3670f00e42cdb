import type { DocumentFiles } from "../documents/document.ports"

// What the crew harness needs from the world.

/** The crew folder of one workspace: the record files of `.opencode/crew/`. */
export type CrewFiles = DocumentFiles

/** The dispatchable forge-* workers as the registration output and /crew show them. */
export interface CrewRoster {
  /** The workers grouped by pool with each pool's origin, the primary marked; one line per worker. */
  text: string
  /** How many forge-* workers the task tool can dispatch. */
  dispatchable: number
  /** Findings of the forge.json files (errors and warnings), one line each. */
  findings: string[]
}

export interface CrewRosterSource {
  roster(): Promise<CrewRoster>
}

/** Whether an active goal owned by the session governs it (the goal harness's answer). */
export type CrewGovernance = (sessionId: string) => Promise<boolean>
