import type { CrewCommandTurn } from "../../../services/crew/crew.command"
import type { CrewRosterSource } from "../../../services/crew/crew.ports"
import type { LiveRestoreReport } from "../../../services/lifecycle/lifecycle.restore.live"
import type { CrewService } from "../../../services/crew/crew.service"

/** The crew harness as the plugin's hooks see it (built in src/crew/crew.lazy.ts, loaded on first use). */
export interface HostCrewsHandle {
  service: CrewService
  /** The forge-* workers the task tool can dispatch, read from the forge.json files as they are now. */
  roster: CrewRosterSource
  /** Carries out `/crew <arguments>` for a session: the text the model reads and the text the user's message shows. */
  command(sessionId: string, rawArguments: string): Promise<CrewCommandTurn>
  /** Restores the workspace's live crews from their records. */
  restore(): Promise<LiveRestoreReport>
}
