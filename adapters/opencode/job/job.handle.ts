import type { JobSupervisor } from "../../../services/job/job.service"

/** The job harness of this host process as the plugin's hooks see it (built in src/job/job.lazy.ts). */
export interface HostJobsHandle {
  supervisor: JobSupervisor
  /** The sandbox command line the (root) session's commands run inside, as its loop confines it; null: unconfined. */
  sandboxOf(sessionId: string): readonly string[] | null
  /** The driver watch's look: the jobs of a host that ended while this process runs are taken up (and said in the log). */
  takeOverLeft(): Promise<void>
  /** Removes the exit handlers and releases the host (the supervisor itself is disposed by the plugin's dispose hook). */
  uninstall(): void
}
