import type { RestoredJobFate } from "../../machines/job.gates"
import type { JobContext, JobEvent, JobHost } from "../../machines/job.machine"
import type { SnapshotRecord } from "../lifecycle/lifecycle.ports"
import type { ExitReport, JobProcesses } from "./job.ports"

// Start-up: what one live job record an earlier host wrote becomes here. The lifecycle restores the record (checked,
// brought up to date); before that, a record of a host that still runs is left to it, and after it, an adopted job
// is watched.

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

/** The event that carries out a restored job's fate (claimed by the one process that applies it). */
export function restoredJobEvent(fate: RestoredJobFate, at: number, host: JobHost): JobEvent {
  switch (fate) {
    case "spawn-failed":
      return { type: "job.spawnFailed", error: "the host stopped before the job started", at }
    case "orphan":
      return { type: "job.orphan", at }
    default:
      return { type: "job.adopt", at, host }
  }
}
