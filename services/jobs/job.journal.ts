import type { AnyMachineSnapshot, InspectionEvent } from "xstate"
import { jobMachine } from "../../machines/job.machine"
import { stateToString } from "../../machines/state.text"
import { NO_STATE } from "../lifecycle/lifecycle"
import type { Clock, LifecycleRepository, Logger } from "../lifecycle/lifecycle.ports"

// Job actors are lifecycles like any other: every change of state is committed — the snapshot and one row of the
// shared transition log — so a restart knows which jobs were live and which outlive their host (survive mode).
// Output and clock ticks that change no state are not written: they are frequent, and the log file keeps the output.

const QUIET_EVENTS = new Set(["job.output", "job.tick"])
/** Finished jobs whose records (snapshot and transitions) are kept; older ones are pruned. */
export const JOB_HISTORY_LIMIT = 500
/** Pruning runs at start-up and after this many jobs finished. */
export const JOB_PRUNE_EVERY = 50

export interface JobRetention {
  historyLimit: number
  pruneEvery: number
}

export class JobJournal {
  private queue: Promise<void> = Promise.resolve()
  private finishedSincePrune = 0

  constructor(
    private readonly repository: () => Promise<LifecycleRepository | undefined>,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly retention: JobRetention = { historyLimit: JOB_HISTORY_LIMIT, pruneEvery: JOB_PRUNE_EVERY },
  ) {}

  /** The `inspect` option for one job actor: records each transition of the actor itself. */
  inspector(jobId: string, initialState: string = NO_STATE): (event: InspectionEvent) => void {
    let previous = initialState
    return (inspection) => {
      if (inspection.type !== "@xstate.snapshot") return
      if ((inspection.actorRef as { sessionId?: string }).sessionId !== inspection.rootId) return
      const snapshot = inspection.snapshot as AnyMachineSnapshot
      if (snapshot.value === undefined) return
      const to = stateToString(snapshot.value)
      const event = inspection.event.type
      // Quiet events that change no state, and a restored actor starting where its record already is.
      if (to === previous && (QUIET_EVENTS.has(event) || event === "xstate.init")) return
      const from = previous
      previous = to
      this.enqueue(jobId, snapshot, from, event, to)
    }
  }

  /** Retention: the records of all but the newest finished jobs (`JOB_HISTORY_LIMIT` by default) go. */
  prune(): Promise<void> {
    this.finishedSincePrune = 0
    this.queue = this.queue.then(async () => {
      const repository = await this.repository()
      if (repository === undefined) return
      const { historyLimit } = this.retention
      const removed = await repository.pruneTerminal(jobMachine.id, historyLimit)
      if (removed > 0) this.log.info(`pruned the records of ${removed} finished job(s); the newest ${historyLimit} are kept`)
    }).catch((error: unknown) => this.log.warn(`could not prune finished job records: ${String(error)}`))
    return this.queue
  }

  /** Waits until every queued write has landed. */
  flush(): Promise<void> {
    return this.queue
  }

  private enqueue(jobId: string, snapshot: AnyMachineSnapshot, from: string, event: string, to: string): void {
    const at = this.clock.now()
    const persisted = jobMachine.getPersistedSnapshot(snapshot)
    const sessionId = (snapshot.context as { sessionId?: string }).sessionId ?? null
    this.queue = this.queue.then(async () => {
      const repository = await this.repository()
      if (repository === undefined) return
      await repository.commit(
        {
          machineId: jobMachine.id,
          machineVersion: jobMachine.version ?? "0",
          instanceId: jobId,
          sessionId,
          state: to,
          terminal: snapshot.status === "done",
          snapshot: persisted,
          document: null,
          updatedAt: at,
        },
        { machineId: jobMachine.id, instanceId: jobId, sessionId, from, event, to, at },
      )
    }).catch((error: unknown) => this.log.warn(`job ${jobId}: could not record ${from} --${event}--> ${to}: ${String(error)}`))
    if (snapshot.status === "done" && ++this.finishedSincePrune >= this.retention.pruneEvery) void this.prune()
  }
}
