import type { SnapshotFrom } from "xstate"
import { type CrewMachine, crewMachine } from "../../machines/crew/crew.machine"
import { explainCrewBirthRefusal, explainCrewRefusal } from "../../machines/crew/crew.refusals"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { LifecycleHost } from "../lifecycle/lifecycle.host"
import { crewContextProblem, upgradeCrewRecord } from "./crew.context"
import { type CrewImplementationDeps, createCrewImplementations } from "./crew.implementations"

export type CrewSnapshot = SnapshotFrom<CrewMachine>

/** The key a session's one live crew holds in the database, whichever process wrote it. */
export function liveCrewKey(sessionId: string, live: boolean): string | null {
  return live ? `crew:session:${sessionId}` : null
}

/** The crew lifecycle on the one host: its machine, its record writes, its refusals, its records. */
export function defineCrewLifecycle(host: LifecycleHost, deps: CrewImplementationDeps): Lifecycle<CrewMachine> {
  return host.define({
    machine: crewMachine,
    implementations: createCrewImplementations(deps),
    explain: explainCrewRefusal,
    // The birth gate: a registration the machine refused ends in `refused` and is never created.
    birthRefusal: (snapshot) => (snapshot.matches("refused") ? explainCrewBirthRefusal(snapshot) : null),
    metaOf: (snapshot) => ({
      sessionId: snapshot.context.sessionId,
      document: snapshot.context.crewPath,
      exclusiveKey: liveCrewKey(snapshot.context.sessionId, snapshot.hasTag("live")),
    }),
    contextProblem: crewContextProblem,
    upgrade: upgradeCrewRecord,
    // Any opencode process on the workspace may step a crew (a TUI beside `opencode run`): each step is decided on the
    // latest committed record, and the belt of a crew armed elsewhere lifts at the next task call.
    shared: true,
  })
}
