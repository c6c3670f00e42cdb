import type { JobLogs } from "./job.ports"
import type { JobRegistry } from "./job.registry"
import type { LiveJob } from "./live.job"

// Which job a forge_jobs call names: a listed job, or one whose result was delivered already (consumed), which only
// `log` may still page while its log file exists.

/** The listed job, or what to answer for an id that is not listed (consumed, or unknown). */
export function findJob(jobId: string, jobs: ReadonlyMap<string, LiveJob>, registry: Pick<JobRegistry, "isConsumed">): LiveJob | string {
  const job = jobs.get(jobId)
  if (job !== undefined) return job
  return registry.isConsumed(jobId)
    ? `job ${jobId}: already consumed — its final result was already delivered.`
    : `unknown job ${jobId}. forge_jobs list shows the jobs.`
}

/**
 * The log forge_jobs log may page: a listed job's, or a consumed job's while it is on disk. Delivering a result
 * (a foreground exit, a terminal poll, a kill) ends the job's lifecycle, never its log: only rotation removes that.
 */
export async function pageableLog(
  jobId: string,
  jobs: ReadonlyMap<string, LiveJob>,
  registry: Pick<JobRegistry, "isConsumed">,
  logs: Pick<JobLogs, "exists" | "pathFor">,
): Promise<string | { refusal: string }> {
  const job = jobs.get(jobId)
  if (job !== undefined) return job.snapshot.context.logFile
  if (!registry.isConsumed(jobId)) return { refusal: `unknown job ${jobId}. forge_jobs list shows the jobs.` }
  if (!(await logs.exists(jobId))) return { refusal: `job ${jobId}: already consumed, and its log is gone (rotated out with older job logs, or deleted).` }
  return logs.pathFor(jobId)
}
