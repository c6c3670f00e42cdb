import type { HostCrewsHandle } from "../../adapters/opencode/crew/crew.handle"
import { FsCrewFiles } from "../../adapters/workspace/crew.files"
import { goalStatusOf } from "../../machines/goal/goal.status"
import { runCrewCommand } from "../../services/crew/crew.command"
import { defineCrewLifecycle } from "../../services/crew/crew.lifecycle"
import type { CrewRosterSource } from "../../services/crew/crew.ports"
import { restoreCrews } from "../../services/crew/crew.restore"
import { CrewService } from "../../services/crew/crew.service"
import type { GoalService } from "../../services/goal/goal.service"
import type { LifecycleHost } from "../../services/lifecycle/lifecycle.host"
import type { Clock, LifecycleRepository, Logger } from "../../services/lifecycle/lifecycle.ports"
import { crewMachine } from "../../machines/crew/crew.machine"
import { explainCrewBirthRefusal, explainCrewRefusal } from "../../machines/crew/crew.refusals"
import { createCrewImplementations } from "../../services/crew/crew.implementations"
import type { LifecycleParts } from "../forge.module"

/** The crew harness of one workspace: the service the tools, /crew and the task belt call. */
export function createHostCrews(options: {
  log: Logger
  clock: Clock
  workspace: string
  host: LifecycleHost
  /** The goal harness: an active goal owned by the session governs its crew. */
  goals: GoalService
  roster: CrewRosterSource
  /** The workspace database's lifecycle records, for the restore. */
  repository: () => Promise<LifecycleRepository | undefined>
}): HostCrewsHandle {
  const files = new FsCrewFiles(options.workspace)
  const lifecycle = defineCrewLifecycle(options.host, { files, clock: options.clock })
  const isGoverned = async (sessionId: string) => {
    await options.goals.refresh()
    const goal = options.goals.liveFor(sessionId)
    return goal !== undefined && goalStatusOf(goal.value) === "active"
  }
  const service = new CrewService({ lifecycle, files, clock: options.clock, log: options.log, roster: options.roster, isGoverned })
  return {
    service,
    roster: options.roster,
    command: (sessionId, rawArguments) => runCrewCommand(service, options.roster, sessionId, rawArguments),
    async restore() {
      const repository = await options.repository()
      if (repository === undefined) return { restored: [], problems: [] }
      return restoreCrews(lifecycle, repository)
    },
  }
}

/** The crew lifecycle's lazy part. */
export const crewParts: LifecycleParts<"crew"> = {
  machine: crewMachine,
  createImplementations: createCrewImplementations,
  explainRefusal: explainCrewRefusal,
  // A crew needs a declared plan, a session free of crews and a worker it can dispatch: the machine decides.
  explainBirthRefusal: explainCrewBirthRefusal,
  restore: { when: "after-open" },
  // Any opencode process on the workspace may step a crew: each step is decided on the latest committed record.
  driver: { kind: "shared-record" },
  create: (parts) =>
    createHostCrews({
      log: parts.log,
      clock: parts.clock,
      workspace: parts.workspace,
      host: parts.host,
      goals: parts.handle("goal").service,
      roster: parts.roster,
      repository: parts.repository,
    }),
}
