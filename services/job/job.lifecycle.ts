import { type JobContext, type JobMachine, jobMachine } from "../../machines/job/job.machine"
import { explainJobBirthRefusal, explainJobRefusal } from "../../machines/job/job.refusals"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { PersistedShape } from "../lifecycle/lifecycle.definition"
import type { LifecycleHost } from "../lifecycle/lifecycle.host"
import { type JobImplementationDeps, createJobImplementations } from "./job.implementations"

// The job lifecycle on the one host. Output and clock ticks that change no state are not recorded: they are
// frequent, and the log file keeps the output. Only the newest finished jobs' records are kept.

/** Finished jobs whose records (snapshot and transitions) are kept; older ones are pruned. */
const JOB_HISTORY_LIMIT = 500
/** Pruning runs at start-up and after this many jobs finished. */
const JOB_PRUNE_EVERY = 50

export interface JobLifecycleOptions {
  retention?: { keep: number; every: number }
}

/** A job this host knows nothing of (a record written before jobs named their host) belongs to a host that is gone. */
const UNKNOWN_HOST: JobContext["host"] = { pid: 0, startedAt: 0, instance: "unknown" }

/**
 * Records written before jobs named their host have none (their host is gone), records written before shims existed
 * have no shim (their job ran with the markers only), and records written before the birth gate was the machine's
 * keep no birth facts (their job is past its birth). Every version reads so; the machine checks the rest.
 */
function upgradeJobRecord(persisted: PersistedShape): PersistedShape {
  const context = persisted.context
  if (context === null || typeof context !== "object" || Array.isArray(context)) throw new Error("its context is not an object")
  const partial = context as Partial<JobContext>
  return {
    value: persisted.value,
    context: { ...partial, host: partial.host ?? UNKNOWN_HOST, shim: partial.shim ?? null, birth: partial.birth ?? null },
  }
}

export function defineJobLifecycle(host: LifecycleHost, deps: Omit<JobImplementationDeps, "feed">, options: JobLifecycleOptions = {}): Lifecycle<JobMachine> {
  // The kill effect feeds its decision back into the machine: bound once the lifecycle exists.
  let lifecycle: Lifecycle<JobMachine> | undefined
  const feed: JobImplementationDeps["feed"] = (jobId, event) => {
    if (lifecycle?.has(jobId)) lifecycle.send(jobId, event)
  }
  lifecycle = host.define({
    machine: jobMachine,
    implementations: createJobImplementations({ ...deps, feed }),
    explain: explainJobRefusal,
    // The birth gate: a job the survivor cap refused ends in `refused` and is never created.
    birthRefusal: (snapshot) => (snapshot.matches("refused") ? explainJobBirthRefusal(snapshot) : null),
    metaOf: (snapshot) => ({ sessionId: snapshot.context.sessionId, document: null }),
    upgrade: upgradeJobRecord,
    quietEvents: ["job.output", "job.tick"],
    retention: options.retention ?? { keep: JOB_HISTORY_LIMIT, every: JOB_PRUNE_EVERY },
  })
  return lifecycle
}
