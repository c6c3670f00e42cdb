import type { LiveRestoreReport } from "../../../services/lifecycle/lifecycle.restore.live"
import type { LoopService } from "../../../services/loop/loop.service"

/** The loop harness as the plugin's hooks see it (built in src/loop/loop.lazy.ts, loaded on first use). */
export interface HostLoopsHandle {
  service: LoopService
  /** Restores the workspace's running loops from their records and takes up the passes that were left. */
  restore(): Promise<LiveRestoreReport>
  dispose(): void
}
