import type { Logger } from "../lifecycle/lifecycle.ports"
import type { SessionIdleQuery, WakeSender } from "./job.ports"
import { wakeText } from "./job.report"
import type { LiveJob } from "./live.job"
import { SessionActivity } from "./session.activity"

/** How much of a finished job's output a wake carries. */
export const WAKE_TAIL_BYTES = 8 * 1024

export interface JobWakesDeps {
  wake: WakeSender
  /** Whether a session this host has no status for yet is idle (without it, such a session counts as busy). */
  sessionIsIdle?: SessionIdleQuery
  readTail: (file: string, bytes: number) => Promise<string>
  log: Logger
}

// Delivering the wake a job's machine owes its session: only into an idle session, one delivery at a time per job,
// and a failed delivery waits for the session's next idle.

export class JobWakes {
  private readonly sessions: SessionActivity

  constructor(private readonly deps: JobWakesDeps) {
    this.sessions = new SessionActivity(deps.sessionIsIdle)
  }

  /** The host says a session went idle or busy. */
  sessionStatus(sessionId: string, status: "idle" | "busy"): void {
    this.sessions.set(sessionId, status)
  }

  forget(sessionId: string): void {
    this.sessions.forget(sessionId)
  }

  /** Sends the job's completion into `owner` when it is idle; `delivered` tells the job's machine. */
  async deliver(job: LiveJob, owner: string, delivered: () => void): Promise<void> {
    if (job.delivering) return
    job.delivering = true
    try {
      if (!(await this.sessions.isIdle(owner))) return
      const { context } = job.snapshot
      await this.deps.wake(owner, wakeText(context, await this.deps.readTail(context.logFile, WAKE_TAIL_BYTES)))
      delivered()
    } catch (error) {
      this.deps.log.warn(`job ${job.jobId}: wake delivery failed, retrying at the next idle: ${String(error)}`)
    } finally {
      job.delivering = false
    }
  }
}
