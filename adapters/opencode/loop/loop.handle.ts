import type { LiveRestoreReport } from "../../../services/lifecycle/lifecycle.restore.live"
import type { LoopReviewService } from "../../../services/loop/loop.review"
import type { LoopService } from "../../../services/loop/loop.service"
import type { SessionSandbox } from "../../sandbox/loop.sandboxes"

/** The plan a loop_start without an inline plan runs: its path, its status, and its sections (null: unreadable). */
export interface ScreenLoopPlan {
  planPath: string
  status: string
  sections: number | null
}

/** The loop harness as the plugin's hooks see it (built in src/loop/loop.lazy.ts, loaded on first use). */
export interface HostLoopsHandle {
  service: LoopService
  /** review_write, review_read and review_delete. */
  reviews: LoopReviewService
  /** The session's live plan, as loop_start's line shows it (read at once: it is drawn before the call runs). */
  sessionPlan(sessionId: string): ScreenLoopPlan | undefined
  /**
   * The bubblewrap command line a shell of the (root) session runs in, as its loop's machine confines it; null when
   * the session is no running loop's or the loop's sandbox is off.
   */
  sandboxOf(sessionId: string): SessionSandbox | null
  /** Restores the workspace's running loops from their records and takes up the passes that were left. */
  restore(): Promise<LiveRestoreReport>
  dispose(): void
}
