import type { GoalCommandTurn } from "../../../services/goal/goal.command"
import type { GoalLoop } from "../../../services/goal/goal.loop"
import type { LiveRestoreReport } from "../../../services/lifecycle/lifecycle.restore.live"
import type { GoalService } from "../../../services/goal/goal.service"
import type { GoalAudits } from "../../../services/goal/goal.audit"
import type { OpencodeAuditSessions } from "./goal.audit.sessions"
import type { SessionSandbox } from "../../sandbox/loop.sandboxes"

/** The goal harness as the plugin's hooks see it (built in src/goal/goal.lazy.ts, loaded on first use). */
export interface HostGoalsHandle {
  service: GoalService
  loop: GoalLoop
  /** Goals' audits: whose auditor a session is, and the machine's write-ban on its calls. */
  audits: GoalAudits
  /** The auditor sessions: their idles and errors end the audits that wait on them. */
  auditSessions: OpencodeAuditSessions
  /** The bubblewrap command line a goal auditor's shells run in (read-only); null for any other session, or sandbox off. */
  auditSandboxOf(sessionId: string): SessionSandbox | null
  /** Carries out `/goal <arguments>` for a session: the text the model reads and the text the user's message shows. */
  command(sessionId: string, rawArguments: string): Promise<GoalCommandTurn>
  /** The session's live goal in a few lines for a compaction's context, if it has one. */
  compactionContext(sessionId: string): Promise<string | undefined>
  /** Restores the workspace's live goals from their records and re-arms their loops' deadlines. */
  restore(): Promise<LiveRestoreReport>
  dispose(): void
}
