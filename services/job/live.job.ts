import type { SnapshotFrom } from "xstate"
import type { JobMachine } from "../../machines/job/job.machine"
import type { KillOutcome } from "./job.implementations"
import type { OutputMatcher, Timers } from "./job.ports"

/** The supervisor's working record of one job: its machine's latest snapshot plus what watches it. */
export interface LiveJob {
  jobId: string
  /** The machine's latest snapshot (kept after the lifecycle dropped a finished job, for the final reply). */
  snapshot: SnapshotFrom<JobMachine>
  /** A kill the machine decided after a success-pattern match (keep_alive: false), under way. */
  killAfterMatch?: Promise<KillOutcome>
  stopWatch?: () => void
  timer?: { cancel(): void }
  matcher?: OutputMatcher
  /** The success pattern as the model wrote it, for messages. */
  patternText?: string
  /** Bytes of the log already fed to the success-pattern matcher. */
  scanOffset: number
  /** Why the success pattern was given up (its time budget ran out, its matcher failed): told to the caller. */
  patternAbandoned?: string
  /** The process exited: a scan in progress stops, the exit is the last word. */
  exited: boolean
  /** Bytes of the log already handed to a poll. */
  readOffset: number
  /** Serializes growth handling: each output event is fully handled before the next. */
  growth: Promise<void>
  delivering: boolean
  growthWaiters: Set<() => void>
}

/** The survive jobs still alive among these: what the survivor cap counts. */
export function liveSurvivorsOf(jobs: Iterable<LiveJob>): number {
  return [...jobs].filter(({ snapshot }) => snapshot.context.survive && snapshot.hasTag("alive")).length
}

export function newLiveJob(snapshot: SnapshotFrom<JobMachine>, pattern?: { matcher: OutputMatcher; text: string }): LiveJob {
  return {
    jobId: snapshot.context.jobId,
    snapshot,
    matcher: pattern?.matcher,
    patternText: pattern?.text,
    scanOffset: 0,
    readOffset: 0,
    exited: false,
    growth: Promise.resolve(),
    delivering: false,
    growthWaiters: new Set(),
  }
}

/** Resolves at the job's next output or end, or after `ms`, whichever comes first. */
export function waitForGrowth(job: LiveJob, timers: Timers, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = timers.setTimeout(() => done(), ms)
    const done = () => {
      timer.cancel()
      job.growthWaiters.delete(done)
      resolve()
    }
    job.growthWaiters.add(done)
  })
}

export function releaseGrowthWaiters(job: LiveJob): void {
  for (const waiter of [...job.growthWaiters]) waiter()
}

/** The process is gone: nothing left to watch or time. */
export function quiesce(job: LiveJob): void {
  job.timer?.cancel()
  job.stopWatch?.()
  job.stopWatch = undefined
  job.matcher?.dispose()
  job.matcher = undefined
  releaseGrowthWaiters(job)
}
