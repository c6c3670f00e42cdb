import type { GoalCommandTurn } from "../../../services/goal/goal.command"
import type { GoalLoop } from "../../../services/goal/goal.loop"
import type { LiveRestoreReport } from "../../../services/lifecycle/lifecycle.restore.live"
import type { GoalService } from "../../../services/goal/goal.service"

/** The goal harness as the plugin's hooks see it (built in src/goal/goal.lazy.ts, loaded on first use). */
export interface HostGoalsHandle {
  service: GoalService
  loop: GoalLoop
  /** Carries out `/goal <arguments>` for a session: the text the model reads and the text the user's message shows. */
  command(sessionId: string, rawArguments: string): Promise<GoalCommandTurn>
  /** The session's live goal in a few lines for a compaction's context, if it has one. */
  compactionContext(sessionId: string): Promise<string | undefined>
  /** Restores the workspace's live goals from their records and re-arms their loops' deadlines. */
  restore(): Promise<LiveRestoreReport>
  dispose(): void
}
