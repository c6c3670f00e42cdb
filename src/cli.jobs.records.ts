import { existsSync, statSync } from "node:fs"
import type { SnapshotFrom } from "xstate"
import type { JobContext, JobMachine } from "../machines/job/job.machine"
import { stateToString } from "../machines/state.text"
import { isHostAlive, isSameProcessAt } from "../adapters/process/job.hosts"
import { JOB_ID_VAR } from "../adapters/process/job.markers"
import { isLiveStat, pidsWithEnv, readProcessStat } from "../adapters/process/proc.table"
import { databasePath } from "../adapters/storage/database.path"
import { type LifecycleStore, openLifecycleStore } from "../adapters/storage/lifecycle.store"
import { OutsideJobs } from "../services/job/job.outside"
import { createDriverClaims } from "./drivers"

// `forgecharts jobs`: the workspace's survive jobs as their records say, each checked against the process table. The
// records are read through the job lifecycle (services/job/job.outside.ts), so a kill or a clear steps the very
// machine Forge steps, on the record it read, when the machine's driver gate lets this process drive the job.

export interface JobView {
  id: string
  state: string
  final: boolean
  command: string
  cwd: string
  session: string
  pid: number | null
  /** Whether the job's shell is still the process it started as (same pid and start time). */
  alive: boolean
  /** The opencode process that runs (or adopted) it, and whether that process still runs. */
  host: { pid: number; alive: boolean }
  exitCode: number | null
  signal: string | null
  log: { path: string; bytes: number | null }
  startedAt: string | null
  endedAt: string | null
}

export interface JobEntry {
  snapshot: SnapshotFrom<JobMachine>
  view: JobView
}

/** A workspace's job records, open on its database. */
export interface WorkspaceJobs {
  store: LifecycleStore
  /** The job records, and the kill or clear recorded into a job's machine. */
  outside: OutsideJobs
  /** The survive jobs, in the order of their ids (which begin with their start time). */
  survivors: JobEntry[]
  /** Ids of the other jobs (they end with the opencode process that runs them). */
  others: string[]
  /** Job records that cannot be read, with why. */
  damaged: { id: string; problem: string }[]
  close(): Promise<void>
}

/** The workspace's jobs, or null when Forge never ran there (inspection creates no database). */
export async function openWorkspaceJobs(workspace: string): Promise<WorkspaceJobs | null> {
  if (!existsSync(databasePath(workspace))) return null
  const store = await openLifecycleStore(workspace)
  const log = {
    info: () => {},
    warn: (message: string) => process.stderr.write(`forgecharts: ${message}\n`),
    error: (message: string) => process.stderr.write(`forgecharts: ${message}\n`),
  }
  const clock = { now: () => Date.now() }
  const claims = createDriverClaims({ connection: async () => store.connection, clock, log })
  const outside = await OutsideJobs.open({ repository: store.repository, claims, isHostAlive, clock, log })
  const jobs: WorkspaceJobs = { store, outside, survivors: [], others: [], damaged: outside.damaged, close: () => store.close() }
  for (const snapshot of outside.jobs) {
    if (snapshot.context.survive) jobs.survivors.push({ snapshot, view: viewOf(snapshot) })
    else jobs.others.push(snapshot.context.jobId)
  }
  return jobs
}

function viewOf(snapshot: SnapshotFrom<JobMachine>): JobView {
  const c = snapshot.context
  return {
    id: c.jobId,
    state: stateToString(snapshot.value),
    final: snapshot.status === "done",
    command: c.command,
    cwd: c.cwd,
    session: c.sessionId,
    pid: c.pid,
    alive: shellRuns(c),
    host: { pid: c.host.pid, alive: isHostAlive(c.host) },
    exitCode: c.exitCode,
    signal: c.signal,
    log: { path: c.logFile, bytes: fileSize(c.logFile) },
    startedAt: c.startedAt === null ? null : new Date(c.startedAt).toISOString(),
    endedAt: c.endedAt === null ? null : new Date(c.endedAt).toISOString(),
  }
}

function shellRuns(context: JobContext): boolean {
  return context.pid !== null && context.startedAt !== null && isSameProcessAt(context.pid, context.startedAt)
}

/** What of a job still runs, each checked against the process table so a pid the kernel handed out again never counts. */
export interface JobLiveness {
  /** `runs`: the shell is the process the record names; `taken`: its pid now belongs to another process. */
  shell: "runs" | "ended" | "taken"
  /** The job's subreaper shim still runs (it outlives the shell while anything the shell left runs). */
  shim: boolean
  /** Processes carrying the job's marker (FORGE_JOB_ID) in their environment. */
  marked: number[]
}

export function livenessOf(context: JobContext): JobLiveness {
  const { pid, shim } = context
  let shell: JobLiveness["shell"] = "ended"
  if (shellRuns(context)) shell = "runs"
  else if (pid !== null) {
    const stat = readProcessStat(pid)
    if (stat !== null && isLiveStat(stat)) shell = "taken"
  }
  return {
    shell,
    shim: shim !== null && isSameProcessAt(shim.pid, shim.startedAt),
    marked: pidsWithEnv(JOB_ID_VAR, context.jobId),
  }
}

/** Whether anything of the job still runs. */
export function runsAny(liveness: JobLiveness): boolean {
  return liveness.shell === "runs" || liveness.shim || liveness.marked.length > 0
}

function fileSize(file: string): number | null {
  try {
    const stat = statSync(file)
    return stat.isFile() ? stat.size : null
  } catch {
    return null
  }
}
