import type { AnyMachineSnapshot, InspectionEvent } from "xstate"
import { jobMachine } from "../../machines/job.machine"
import { stateToString } from "../../machines/state.text"
import { NO_STATE } from "../lifecycle/actor.host"
import type { Clock, LifecycleRepository } from "../lifecycle/lifecycle.ports"
import type { Logger } from "../plan/plan.ports"

// Job actors are lifecycles like any other: every change of state is committed — the snapshot and one row of the
// shared transition log — so a restart knows which jobs were live and which outlive their host (survive mode).
// Output and clock ticks that change no state are not written: they are frequent, and the log file keeps the output.

const QUIET_EVENTS = new Set(["job.output", "job.tick"])

export class JobJournal {
  private queue: Promise<void> = Promise.resolve()

  constructor(
    private readonly repository: () => Promise<LifecycleRepository | undefined>,
    private readonly clock: Clock,
    private readonly log: Logger,
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
      if (to === previous && QUIET_EVENTS.has(event)) return
      const from = previous
      previous = to
      this.enqueue(jobId, snapshot, from, event, to)
    }
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
  }
}
