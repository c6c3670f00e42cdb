import type { DriverFacts } from "../../machines/driver.claim"
import { type RestoredJobFate, restoredJobFate } from "../../machines/job/job.gates"
import type { JobContext, JobEvent, JobHost, JobMachine } from "../../machines/job/job.machine"
import type { SnapshotFrom } from "xstate"
import type { Clock, SnapshotRecord } from "../lifecycle/lifecycle.ports"
import type { JobLedgerEntry } from "./job.ledger"
import type { LiveJob } from "./live.job"
import type { ExitReport, JobProcesses } from "./job.ports"

// Start-up: what one unfinished job record an earlier host wrote becomes here. A record of a host that still runs is
// left to it; the lifecycle restores the others (checked, brought up to date); the fate decided from the record and
// the process table is claimed by the supervisor and then carried out here.

/** Whether a live record belongs to a host process that still runs on this workspace (read before anything trusts it). */
export function isRunningElsewhere(record: SnapshotRecord, isAlive: (host: JobHost) => boolean): boolean {
  const persisted = record.snapshot as { context?: { host?: unknown } } | null
  const host = persisted !== null && typeof persisted === "object" ? persisted.context?.host : undefined
  return isJobHost(host) && isAlive(host)
}

function isJobHost(value: unknown): value is JobHost {
  const host = value as Partial<JobHost> | null
  return host !== null && typeof host === "object" && typeof host.pid === "number" && typeof host.startedAt === "number" && typeof host.instance === "string"
}

/**
 * Watches an adopted survive job, which is not our child: its output by the log's growth, its end by its pid (with the
 * exit status only when its shim kept one). Returns the function that stops both watches.
 */
export function watchAdopted(
  processes: JobProcesses,
  context: JobContext,
  onGrowth: (size: number) => void,
  onGone: (exit: Omit<ExitReport, "at"> | null) => void,
): () => void {
  const stopGrowth = processes.watchGrowth(context.logFile, onGrowth)
  const stopGone = processes.watchGone({ pid: context.pid as number, startedAt: context.startedAt as number, logFile: context.logFile }, onGone)
  return () => {
    stopGrowth()
    stopGone()
  }
}

/**
 * The driver facts of a job whose host still runs: the host holds the job as a live claim would, whatever the claim
 * row says (a host drives its jobs without writing a claim for each).
 */
export function drivenByHost(read: DriverFacts, host: JobHost): DriverFacts {
  return { ...read, claim: { holder: `${host.pid}:${host.startedAt} (plugin instance ${host.instance})`, until: Number.MAX_SAFE_INTEGER }, holderAlive: true }
}

/** The event that carries out a restored job's fate (claimed by the one process that applies it). */
export function restoredJobEvent(fate: RestoredJobFate, at: number, host: JobHost, driver: DriverFacts): JobEvent {
  switch (fate) {
    case "spawn-failed":
      return { type: "job.spawnFailed", error: "the host stopped before the job started", at, driver }
    case "orphan":
      return { type: "job.orphan", at, driver }
    default:
      return { type: "job.adopt", at, host, driver }
  }
}

/** What one restore did with the live job records it found. */
export interface JobRestoreOutcome {
  adopted: string[]
  /** Finished jobs of a dead host whose result (or wake) was still owed: now this host's to deliver. */
  takenOver: string[]
  orphaned: string[]
  /** Live jobs of another host process that still runs on this workspace: left to it. */
  elsewhere: string[]
  problems: string[]
}

/** What a restored job's record becomes here, and what that was decided on. */
export interface RestoredFate {
  fate: RestoredJobFate
  /** Whether the job's own process still runs. */
  processAlive: boolean
  /** How a survive job that ended while no host ran ended, as its shim kept it. */
  kept: Omit<ExitReport, "at"> | null
}

export function restoredFateOf(snapshot: SnapshotFrom<JobMachine>, processes: JobProcesses): RestoredFate {
  const { context } = snapshot
  const processAlive = context.pid !== null && context.startedAt !== null && processes.isSameProcess(context.pid, context.startedAt)
  // A shim that still runs is about to keep the status of the shell it just reaped: the watch waits for it. Asked
  // before the kept status is looked for: a shim that writes the status and exits between the two looks is then seen
  // either running or done, never neither.
  const shimRuns = context.shim !== null && processes.isSameProcess(context.shim.pid, context.shim.startedAt)
  const kept = processAlive || !context.survive ? null : processes.keptExit(context.logFile)
  const fate = restoredJobFate({
    starting: snapshot.value === "starting",
    live: snapshot.hasTag("alive"),
    processAlive,
    survive: context.survive,
    exitKept: kept !== null || shimRuns,
  })
  return { fate, processAlive, kept }
}

/** What the supervisor lends the restore of one job it has claimed. */
export interface FateHands {
  processes: JobProcesses
  clock: Clock
  feed(event: JobEvent): void
  onGrowth(size: number): void
  note(kind: JobLedgerEntry["kind"], message: string): void
}

/** Carries out a claimed job's fate: watched as adopted, its kept end reported, killed and ledgered as an orphan. */
export async function carryOutFate(
  job: LiveJob,
  { fate, processAlive, kept }: RestoredFate,
  outcome: Pick<JobRestoreOutcome, "adopted" | "takenOver" | "orphaned">,
  hands: FateHands,
): Promise<void> {
  const { context } = job.snapshot
  if (fate === "take-over") outcome.takenOver.push(job.jobId)
  if (fate === "adopt" && kept !== null) {
    outcome.adopted.push(job.jobId)
    hands.note("adopted", `adopted from a previous run: it ended while no opencode ran (${kept.signal ?? `exit code ${kept.code}`})`)
    hands.feed({ type: "job.exit", code: kept.code, signal: kept.signal, at: hands.clock.now() })
  } else if (fate === "adopt") {
    job.readOffset = await hands.processes.sizeOf(context.logFile)
    job.stopWatch = watchAdopted(hands.processes, context, hands.onGrowth, (exit) =>
      hands.feed({ type: "job.exit", code: exit?.code ?? null, signal: exit?.signal ?? null, at: hands.clock.now() }),
    )
    outcome.adopted.push(job.jobId)
    hands.note(
      "adopted",
      `adopted from a previous run: ${processAlive ? `pid ${context.pid} still runs` : "its shim is reporting how it ended"} (survive mode)`,
    )
  } else if (fate === "orphan") {
    if (processAlive) await hands.processes.killTree({ pid: context.pid as number, jobId: job.jobId, shim: context.shim })
    hands.note("orphaned", `left live by a previous run${processAlive ? "; it escaped its fence and was killed" : "; its process is gone"}`)
    outcome.orphaned.push(job.jobId)
  }
}
