import { killJobTree } from "../adapters/process/job.tree.kill"
import { SqliteLedgerStore } from "../adapters/storage/ledger.repository"
import { KILL_GRACE_MS } from "../services/job/job.implementations"
import { JobLedger } from "../services/job/job.ledger"
import { type JobEntry, type WorkspaceJobs, livenessOf, runsAny } from "./cli.jobs.records"

// `forgecharts jobs --kill ID`: a survive job's whole tree, killed with the kill Forge's own forge_jobs kill uses, and
// recorded as that kill records it (`job.kill` into the job's machine) when no live opencode process drives the job.
// A job its opencode process still runs is that process's to record: it sees the exit. Only processes whose identity
// still holds are signalled: a pid the kernel handed to another process is never touched.

export interface KillOutcome {
  id: string
  /** The pids killed. */
  killed: number[]
  /** The pids that outlived the kill. */
  survivors: number[]
  /** The state the kill was recorded as; null when nothing was recorded here (with why in `note`). */
  recorded: string | null
  note: string
}

/** What the kill did, and what went wrong (null: nothing); no outcome when it could not begin. */
export type KillResult = { outcome: KillOutcome; error: string | null } | { outcome: null; error: string }

export async function killSurviveJob(jobs: WorkspaceJobs, id: string): Promise<KillResult> {
  const entry = jobs.survivors.find((job) => job.view.id === id)
  if (entry === undefined) return { outcome: null, error: unknownJob(jobs, id) }
  const { context } = entry.snapshot
  const liveness = livenessOf(context)
  if (context.pid === null || !runsAny(liveness)) {
    const later = entry.view.final || entry.view.host.alive ? "" : "; the next opencode start here records how it ended"
    return { outcome: { id, killed: [], survivors: [], recorded: null, note: `job ${id} no longer runs: nothing to kill${later}` }, error: null }
  }
  if (liveness.shell === "taken") {
    const left = [
      ...(liveness.marked.length > 0 ? [`pids ${liveness.marked.join(", ")}`] : []),
      ...(liveness.shim && context.shim !== null ? [`the processes below its shim (pid ${context.shim.pid}, forge-job-shim)`] : []),
    ]
    return {
      outcome: null,
      error: `job ${id}: its shell ended and its pid ${context.pid} now belongs to another process, whose process group Forge will not signal; kill what the job left running by hand: ${left.join(" and ")}`,
    }
  }
  const { recorded, note } = await recordKill(jobs, entry)
  const { killed, survivors } = await killJobTree({ pid: context.pid, jobId: id, shim: context.shim }, { graceMs: KILL_GRACE_MS })
  const outcome: KillOutcome = { id, killed, survivors, recorded, note }
  if (survivors.length === 0) return { outcome, error: null }
  // As Forge's own kill ledgers it: what outlived a kill is worth finding later.
  const ledger = new JobLedger(new SqliteLedgerStore(jobs.store.connection), (problem) => process.stderr.write(`forgecharts: job ledger: ${problem}\n`))
  const message = `${survivors.length} process(es) survived the kill: ${survivors.join(", ")}`
  ledger.append({ at: Date.now(), kind: "kill-survivors", jobId: id, sessionId: context.sessionId, command: context.command, message })
  await ledger.flush()
  return { outcome, error: `job ${id}: ${message}; one in uninterruptible sleep ignores SIGKILL until it wakes (ps -o pid,stat,cmd -p ${survivors.join(",")})` }
}

/**
 * The kill into the job's machine, on the record as read, when its driver gate lets this process record it (a live
 * opencode process that drives the job records its end itself). Decided before the kill is carried out, as Forge's own
 * kill is, so the exit it causes never reads as an unread completion.
 */
async function recordKill(jobs: WorkspaceJobs, entry: JobEntry): Promise<{ recorded: string | null; note: string }> {
  const { view } = entry
  if (view.final) return { recorded: null, note: `its record had ended already (${view.state}); killed what it left running` }
  const outcome = await jobs.outside.record(view.id, "job.kill")
  if (outcome.recorded !== null) return outcome
  return { recorded: null, note: `killed its processes; the kill is not recorded here, the exit is its driver's to record: ${outcome.note}` }
}

/** What to say of an id that names no survive job: a job of another kind, or none, with the ids there are. */
function unknownJob(jobs: WorkspaceJobs, id: string): string {
  if (jobs.others.includes(id)) return `job ${id} is not a survive job: it ends with the opencode process that runs it (forge_jobs kill there)`
  const known = jobs.survivors.map((job) => job.view.id)
  return `unknown job ${id}; ${known.length === 0 ? "this workspace has no survive jobs" : `the survive jobs here: ${known.join(", ")}`}`
}
