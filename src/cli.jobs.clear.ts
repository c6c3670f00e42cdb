import { lstatSync, realpathSync, rmSync } from "node:fs"
import path from "node:path"
import type { JobContext } from "../machines/job/job.machine"
import { exitStatusFile } from "../adapters/process/job.shim"
import { openFilesIn } from "../adapters/process/proc.table"
import { isIdentityAlive } from "../adapters/process/process.identity"
import { SqliteDriverClaimStore } from "../adapters/storage/driver.claim.repository"
import { removeFinishedRecords } from "../adapters/storage/finished.records"
import { JOB_CLAIMS } from "../services/job/job.claims"
import { type JobEntry, type WorkspaceJobs, livenessOf, runsAny } from "./cli.jobs.records"

// `forgecharts jobs --clear`: what finished survive jobs left — their log, the exit status their shim kept beside it,
// and their records (snapshot, transitions, and a driver claim an ended process left on them). Never a job that still runs, never a job a live opencode process
// drives, and never a file Forge did not write: only the two files a job's record names by the job's own id, when they
// are plain files no process holds open. A job whose files cannot all go keeps its record, which names them.

export interface ClearOutcome {
  removed: { id: string; files: string[]; record: boolean }[]
  kept: { id: string; reason: string }[]
}

export async function clearFinishedJobs(jobs: WorkspaceJobs): Promise<ClearOutcome> {
  const outcome: ClearOutcome = { removed: [], kept: [] }
  const finished: JobEntry[] = []
  for (const entry of jobs.survivors) {
    const why = await finishedOrWhyNot(jobs, entry)
    if (why === null) finished.push(entry)
    else outcome.kept.push({ id: entry.view.id, reason: why })
  }
  const cleared: string[] = []
  const files = new Map<string, string[]>()
  for (const { snapshot } of finished) {
    const { removed, kept } = removeJobFiles(snapshot.context)
    files.set(snapshot.context.jobId, removed)
    if (kept === null) cleared.push(snapshot.context.jobId)
    else outcome.kept.push({ id: snapshot.context.jobId, reason: `${kept}; its record stays${removed.length > 0 ? ` (removed ${removed.join(", ")})` : ""}` })
  }
  const records = new Set(await removeFinishedRecords(jobs.store.connection, "job", cleared))
  await releaseDeadClaims(jobs, [...records])
  for (const id of cleared) outcome.removed.push({ id, files: files.get(id) ?? [], record: records.has(id) })
  return outcome
}

/**
 * Null when the job has finished and nothing of it runs; else why it stays. A finished job whose result is still owed
 * to its session (`exited`, its opencode process gone) is cleared as forge_jobs clear clears it: `job.clear` into its
 * machine, on the record as read.
 */
async function finishedOrWhyNot(jobs: WorkspaceJobs, { snapshot, view }: JobEntry): Promise<string | null> {
  const liveness = livenessOf(snapshot.context)
  if (runsAny(liveness)) {
    const pids = [...(liveness.shell === "runs" && view.pid !== null ? [view.pid] : []), ...liveness.marked]
    return `it still runs${pids.length > 0 ? ` (pid ${[...new Set(pids)].join(", ")})` : " (below its shim)"}: forgecharts jobs --kill ${view.id} first`
  }
  if (view.final) return null
  const outcome = await jobs.outside.record(view.id, "job.clear")
  if (outcome.recorded !== null) return null
  // A record that still says it runs, though nothing of it does: its opencode process ended before seeing the end.
  if (outcome.refusedBy === "state")
    return `its record is live (${view.state}) and no opencode process drives it: the next opencode start here records how it ended`
  return `its record stays live (${view.state}): ${outcome.note}`
}

/** Removes the job's log and kept exit status; `kept` says why a file had to stay (null: none did). */
function removeJobFiles(context: JobContext): { removed: string[]; kept: string | null } {
  const log = context.logFile
  // Only the names Forge gives a job's files (FsJobLogs: `<jobId>.log`, the shim's `<jobId>.exit` beside it).
  if (path.basename(log) !== `${context.jobId}.log`) return { removed: [], kept: `its log ${log} is not named for the job, so Forge leaves it` }
  const removed: string[] = []
  for (const file of [log, exitStatusFile(log)]) {
    let stat: ReturnType<typeof lstatSync>
    try {
      stat = lstatSync(file)
    } catch {
      continue
    }
    if (!stat.isFile()) return { removed, kept: `${file} is not a plain file (a link, or something else Forge did not write)` }
    // Something still writing (or reading) it: a process of the job that escaped every marker, or another tool.
    if (isHeldOpen(file)) return { removed, kept: `${file} is held open by a process` }
    try {
      rmSync(file)
    } catch (error) {
      return { removed, kept: `${file} cannot be removed: ${error instanceof Error ? error.message : String(error)}` }
    }
    removed.push(file)
  }
  return { removed, kept: null }
}

function isHeldOpen(file: string): boolean {
  const real = realpathSync(file)
  return openFilesIn(path.dirname(real)).has(real)
}

/** The driver claims a process that has ended left on the cleared jobs (an adopter that died): they go with the records. */
async function releaseDeadClaims(jobs: WorkspaceJobs, ids: readonly string[]): Promise<void> {
  const claims = new SqliteDriverClaimStore(jobs.store.connection)
  for (const id of ids) {
    const claim = await claims.read(JOB_CLAIMS, id)
    if (claim !== null && !isIdentityAlive(claim.holder)) await claims.release(claim.holder, [{ machineId: JOB_CLAIMS, instanceId: id }])
  }
}
