import type { HostCrewsHandle } from "../adapters/opencode/crew/crew.handle"
import { FsCrewFiles } from "../adapters/workspace/crew.files"
import { goalStatusOf } from "../machines/goal/goal.status"
import { runCrewCommand } from "../services/crew/crew.command"
import { defineCrewLifecycle } from "../services/crew/crew.lifecycle"
import type { CrewRosterSource } from "../services/crew/crew.ports"
import { restoreCrews } from "../services/crew/crew.restore"
import { CrewService } from "../services/crew/crew.service"
import type { GoalService } from "../services/goal/goal.service"
import type { LifecycleHost } from "../services/lifecycle/lifecycle.host"
import type { Clock, LifecycleRepository, Logger } from "../services/lifecycle/lifecycle.ports"

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
