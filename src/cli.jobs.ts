import { databasePath } from "../adapters/storage/database.path"
import { clearFinishedJobs } from "./cli.jobs.clear"
import { killSurviveJob } from "./cli.jobs.kill"
import { type JobView, openWorkspaceJobs } from "./cli.jobs.records"

// `forgecharts jobs [workspace] [--kill ID | --clear]`: the survive jobs of a workspace (the ones that outlive
// opencode) with their processes and logs; kill one's whole tree, or clear what finished ones left.

/** What the command prints (as text, or as JSON with --json) and its exit code; or what failed, for stderr. */
export type JobsAnswer = { code: 0 | 1; text: string; json: unknown } | { code: 1; error: string }

export interface JobsListing {
  workspace: string
  /** The workspace's database; null when Forge has not run there (inspection never creates one). */
  database: string | null
  jobs: JobView[]
  damaged: { id: string; problem: string }[]
}

export async function jobsCommand(workspace: string, asked: { kill?: string; clear: boolean }): Promise<JobsAnswer> {
  const jobs = await openWorkspaceJobs(workspace)
  if (jobs === null) {
    const none = `no Forge database in ${workspace} (expected ${databasePath(workspace)}): Forge never ran there`
    if (asked.kill !== undefined) return { code: 1, error: `unknown job ${asked.kill}: ${none}` }
    if (asked.clear) return { code: 0, text: `${none}; nothing to clear\n`, json: { removed: [], kept: [] } }
    return { code: 0, text: `${none}\n`, json: { workspace, database: null, jobs: [], damaged: [] } satisfies JobsListing }
  }
  try {
    if (asked.kill !== undefined) {
      const { outcome, error } = await killSurviveJob(jobs, asked.kill)
      if (outcome === null) return { code: 1, error }
      const killed = outcome.killed.length === 0 ? "" : `killed ${outcome.killed.length} process(es) of job ${outcome.id} (${outcome.killed.join(", ")}); `
      return { code: error === null ? 0 : 1, text: `${killed}${outcome.note}\n${error === null ? "" : `${error}\n`}`, json: outcome }
    }
    if (asked.clear) {
      const outcome = await clearFinishedJobs(jobs)
      const lines = [
        ...outcome.removed.map((r) => `removed job ${r.id}: ${[...r.files, ...(r.record ? ["its records"] : [])].join(", ") || "nothing left of it"}`),
        ...outcome.kept.map((k) => `kept job ${k.id}: ${k.reason}`),
      ]
      return { code: 0, text: `${lines.length === 0 ? "no survive jobs to clear" : lines.join("\n")}\n`, json: outcome }
    }
    const listing: JobsListing = { workspace, database: jobs.store.file, jobs: jobs.survivors.map((job) => job.view), damaged: jobs.damaged }
    return { code: 0, text: listingText(listing), json: listing }
  } finally {
    await jobs.close()
  }
}

function listingText(listing: JobsListing): string {
  const lines = listing.damaged.map((d) => `${d.id}\tdamaged\t${d.problem}`)
  for (const job of listing.jobs) {
    const exit = job.exitCode !== null ? `exit code ${job.exitCode}` : job.signal !== null ? `ended by ${job.signal}` : "no exit code yet"
    const log = `log ${job.log.path} (${job.log.bytes === null ? "gone" : `${job.log.bytes} bytes`})`
    const pid = job.pid === null ? "never started" : `pid ${job.pid} ${job.alive ? "runs" : "ended"}`
    const host = `opencode ${job.host.pid} ${job.host.alive ? "runs" : "ended"}`
    lines.push(`${job.id}\t${job.state}${job.final ? " (final)" : ""}\t${pid}\t${host}\t${exit}\t${log}\t\`${job.command.replace(/\s+/g, " ")}\``)
  }
  if (lines.length === 0) lines.push(`no survive jobs in ${listing.workspace}`)
  return `${lines.join("\n")}\n`
}
