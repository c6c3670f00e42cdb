import type { JobSupervisor } from "../../../services/job/job.service"
import type { SessionSandbox } from "../../sandbox/loop.sandboxes"

/** The job harness of this host process as the plugin's hooks see it (built in src/job/job.lazy.ts). */
export interface HostJobsHandle {
  supervisor: JobSupervisor
  /** The sandbox the (root) session's commands run inside (a loop pass's, a goal auditor's); null: unconfined. */
  sandboxOf(sessionId: string): SessionSandbox | null
  /** The driver watch's look: the jobs of a host that ended while this process runs are taken up (and said in the log). */
  takeOverLeft(): Promise<void>
  /** Removes the exit handlers and releases the host (the supervisor itself is disposed by the plugin's dispose hook). */
  uninstall(): void
}
