import type { JobEvent, JobMachine } from "../../machines/job/job.machine"
import type { EffectArgs, Implementations } from "../lifecycle/lifecycle.definition"
import type { Clock } from "../lifecycle/lifecycle.ports"
import type { JobProcesses } from "./job.ports"

// The job machine's effects, supplied by the harness. Both run from the step that decided them (never twice) and
// report back: the kill as a `job.kill` into the machine before it is carried out, and its outcome to whoever waits
// on it; the wake to the supervisor, which delivers it when the session is idle.

/**
 * An explicit kill (forge_jobs kill, keep_alive: false, a deleted session) gives the tree this long to exit on SIGTERM
 * before SIGKILL; only the plugin's dispose grants the adapter's full graceful pass.
 */
export const KILL_GRACE_MS = 100

export interface KillOutcome {
  survivors: number[]
}

/** What the supervisor does with the effects' results. */
export interface JobEffectHandlers {
  /** A kill the machine decided is under way: its outcome, for the reply of the caller who waited. */
  killed: (jobId: string, outcome: Promise<KillOutcome>) => void
  /** A completion is owed to the job's session. */
  wake: (jobId: string) => void
}

export interface JobImplementationDeps extends JobEffectHandlers {
  processes: Pick<JobProcesses, "killTree">
  clock: Clock
  /** Feeds an event into the job's machine (the lifecycle's `send`). */
  feed: (jobId: string, event: JobEvent) => void
}

export function createJobImplementations(deps: JobImplementationDeps) {
  return {
    actions: {
      killAfterMatch: ({ context }: EffectArgs<JobMachine>) => {
        const { jobId, pid, shim } = context
        // The outcome is handed over before the kill is decided: the decision ends the job's lifecycle.
        let carryOut: () => void = () => undefined
        const outcome = new Promise<KillOutcome>((resolve, reject) => {
          carryOut = () =>
            pid === null ? resolve({ survivors: [] }) : deps.processes.killTree({ pid, jobId, shim }, { graceMs: KILL_GRACE_MS }).then(resolve, reject)
        })
        deps.killed(jobId, outcome)
        // Decided first, carried out second: the exit the kill causes must not read as an unread completion.
        deps.feed(jobId, { type: "job.kill", at: deps.clock.now() })
        carryOut()
      },
      wakeOwner: ({ context }: EffectArgs<JobMachine>) => deps.wake(context.jobId),
    },
  } satisfies Implementations<JobMachine>
}
