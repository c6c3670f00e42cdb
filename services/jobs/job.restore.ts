import { type Actor, type InspectionEvent, type StateValue, createActor } from "xstate"
import { type JobContext, type JobHost, type JobMachine, jobMachine } from "../../machines/job.machine"
import type { SnapshotRecord } from "../lifecycle/lifecycle.ports"
import type { ExitReport, JobProcesses } from "./job.ports"

// Start-up: what one live job record an earlier host wrote becomes here.

export type RestoredJob =
  /** Another opencode process on this workspace runs it: not ours to adopt, orphan or kill. */
  | { kind: "elsewhere" }
  | { kind: "unfit"; problem: string }
  | { kind: "restored"; actor: Actor<JobMachine> }

export function restoreJobRecord(
  record: SnapshotRecord,
  options: { isAlive: (host: JobHost) => boolean; inspect: (jobId: string, state: string) => (event: InspectionEvent) => void },
): RestoredJob {
  const persisted = record.snapshot as { value: StateValue; context: Partial<JobContext> }
  if (persisted.context.host !== undefined && options.isAlive(persisted.context.host)) return { kind: "elsewhere" }
  try {
    // A record written before jobs named their host belongs to a host that is gone; one written before shims existed
    // has none (its job ran with the markers only).
    const context: JobContext = {
      ...(persisted.context as JobContext),
      host: persisted.context.host ?? { pid: 0, startedAt: 0, instance: "unknown" },
      shim: persisted.context.shim ?? null,
    }
    const resolved = jobMachine.resolveState({ value: persisted.value, context })
    const actor = createActor(jobMachine, {
      snapshot: jobMachine.getPersistedSnapshot(resolved),
      input: context,
      inspect: options.inspect(record.instanceId, record.state),
    }).start()
    return { kind: "restored", actor }
  } catch (error) {
    return { kind: "unfit", problem: `job ${record.instanceId}: snapshot does not fit the job machine (${String(error)}); left as it was` }
  }
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
