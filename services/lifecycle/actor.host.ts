import {
  type Actor,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventFromLogic,
  type InputFrom,
  type SnapshotFrom,
  type StateValue,
  createActor,
  transition,
} from "xstate"
import { stateToString } from "../../machines/state.text"
import type { Clock, LifecycleRepository, SnapshotRecord } from "./lifecycle.ports"
import { GateRefusal } from "./gate.refusal"

// One live actor per lifecycle instance. Every accepted event is computed first (pure `transition`), its effect
// (a document write) runs against the computed snapshot, and only then the actor moves and the snapshot and the
// transition row are committed together. A failed effect leaves actor, database and document as they were.

/** The "from" of an instance's first transition row. */
export const NO_STATE = "(none)"

export interface InstanceMeta {
  sessionId: string | null
  document: string | null
}

export type Effect<TMachine extends AnyStateMachine> = (next: SnapshotFrom<TMachine>) => Promise<void>

export interface ActorHostOptions<TMachine extends AnyStateMachine> {
  machine: TMachine
  repository: LifecycleRepository
  clock: Clock
  /** Says why `can(event)` was false, in words that name the gate and the way past it. */
  explain: (snapshot: SnapshotFrom<TMachine>, event: EventFromLogic<TMachine>) => string
  /** Reads the session and document back out of a snapshot, so bindings made by events are persisted. */
  metaOf: (snapshot: SnapshotFrom<TMachine>) => InstanceMeta
  /** Says what is wrong with a persisted context (null: it fits), so a damaged row is refused before an actor runs on it. */
  contextProblem?: (context: unknown) => string | null
}

export class ActorHost<TMachine extends AnyStateMachine> {
  private readonly actors = new Map<string, Actor<TMachine>>()
  private readonly queues = new Map<string, Promise<unknown>>()

  constructor(private readonly options: ActorHostOptions<TMachine>) {}

  get machine(): TMachine {
    return this.options.machine
  }

  has(instanceId: string): boolean {
    return this.actors.has(instanceId)
  }

  snapshot(instanceId: string): SnapshotFrom<TMachine> | undefined {
    return this.actors.get(instanceId)?.getSnapshot() as SnapshotFrom<TMachine> | undefined
  }

  instances(): IterableIterator<[string, Actor<TMachine>]> {
    return this.actors.entries()
  }

  /** Starts a new instance: the effect (e.g. writing the document) runs before anything is recorded. */
  async create(instanceId: string, input: InputFrom<TMachine>, effect?: Effect<TMachine>): Promise<SnapshotFrom<TMachine>> {
    return this.serialize(instanceId, async () => {
      if (this.actors.has(instanceId)) throw new Error(`${this.machine.id} ${instanceId} already exists`)
      const actor = createActor(this.machine, { input }) as Actor<TMachine>
      const first = actor.getSnapshot() as SnapshotFrom<TMachine>
      await effect?.(first)
      actor.start()
      this.actors.set(instanceId, actor)
      await this.record(instanceId, first, NO_STATE, "xstate.init")
      return first
    })
  }

  /** Throws the machine's refusal when the instance would not accept the event now; changes nothing. */
  check(instanceId: string, event: EventFromLogic<TMachine>): void {
    const snapshot = this.actors.get(instanceId)?.getSnapshot() as AnyMachineSnapshot | undefined
    if (snapshot === undefined) throw new Error(`unknown ${this.machine.id} instance ${instanceId}`)
    if (!snapshot.can(event)) throw new GateRefusal(this.machine.id, event.type, this.options.explain(snapshot as SnapshotFrom<TMachine>, event))
  }

  /** Applies one event through the machine's gates; throws `GateRefusal` with the machine's own words when refused. */
  async dispatch(instanceId: string, event: EventFromLogic<TMachine>, effect?: Effect<TMachine>): Promise<SnapshotFrom<TMachine>> {
    return this.serialize(instanceId, async () => {
      const actor = this.actors.get(instanceId)
      if (!actor) throw new Error(`unknown ${this.machine.id} instance ${instanceId}`)
      const before = actor.getSnapshot() as AnyMachineSnapshot
      if (!before.can(event)) throw new GateRefusal(this.machine.id, event.type, this.options.explain(before as SnapshotFrom<TMachine>, event))
      const [next] = transition(this.machine, before as SnapshotFrom<TMachine>, event)
      await effect?.(next as SnapshotFrom<TMachine>)
      actor.send(event)
      const after = actor.getSnapshot() as SnapshotFrom<TMachine>
      await this.record(instanceId, after, stateToString(before.value), event.type)
      return after
    })
  }

  /**
   * Replaces an instance's snapshot with one resolved from outside truth (a hand-edited document), validated by
   * the machine first; recorded as a transition under the given event name.
   */
  async reconcile(instanceId: string, value: StateValue, context: SnapshotFrom<TMachine>["context"], eventName: string): Promise<SnapshotFrom<TMachine>> {
    return this.serialize(instanceId, async () => this.replace(instanceId, value, context, eventName))
  }

  /**
   * Reads outside truth inside the instance's queue and reconciles with it when `read` returns a target, so no
   * dispatch lands between the read and the replace. Resolves to the new snapshot, or undefined when nothing moved.
   */
  async follow(
    instanceId: string,
    read: (current: SnapshotFrom<TMachine> | undefined) => Promise<{ value: StateValue; context: SnapshotFrom<TMachine>["context"] } | undefined>,
    eventName: string,
  ): Promise<SnapshotFrom<TMachine> | undefined> {
    return this.serialize(instanceId, async () => {
      const target = await read(this.snapshot(instanceId))
      return target === undefined ? undefined : this.replace(instanceId, target.value, target.context, eventName)
    })
  }

  private async replace(instanceId: string, value: StateValue, context: SnapshotFrom<TMachine>["context"], eventName: string): Promise<SnapshotFrom<TMachine>> {
    const resolved = this.machine.resolveState({ value, context }) as SnapshotFrom<TMachine>
    const previous = this.actors.get(instanceId)
    const from = previous ? stateToString((previous.getSnapshot() as AnyMachineSnapshot).value) : NO_STATE
    previous?.stop()
    const actor = this.start(resolved)
    this.actors.set(instanceId, actor)
    await this.record(instanceId, actor.getSnapshot() as SnapshotFrom<TMachine>, from, eventName)
    return actor.getSnapshot() as SnapshotFrom<TMachine>
  }

  /**
   * Restores one persisted instance. The snapshot is validated with `resolveState` before an actor sees it, so a
   * snapshot that no longer fits the machine throws here (for the caller to report) instead of erroring the actor.
   */
  restore(record: SnapshotRecord): SnapshotFrom<TMachine> {
    const persisted = record.snapshot as { value?: StateValue; context?: unknown }
    if (persisted === null || typeof persisted !== "object" || persisted.value === undefined || persisted.context === undefined) {
      throw new Error(`${record.machineId} ${record.instanceId}: persisted snapshot has no value or context`)
    }
    const problem = this.options.contextProblem?.(persisted.context) ?? null
    if (problem !== null) throw new Error(`${record.machineId} ${record.instanceId}: ${problem}`)
    const resolved = this.machine.resolveState({
      value: persisted.value,
      context: persisted.context as SnapshotFrom<TMachine>["context"],
    }) as SnapshotFrom<TMachine>
    const actor = this.start(resolved)
    this.actors.set(record.instanceId, actor)
    return actor.getSnapshot() as SnapshotFrom<TMachine>
  }

  stopAll(): void {
    for (const actor of this.actors.values()) actor.stop()
    this.actors.clear()
  }

  /** Waits until every queued dispatch has finished. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.queues.values()])
  }

  private start(snapshot: SnapshotFrom<TMachine>): Actor<TMachine> {
    const persisted = this.machine.getPersistedSnapshot(snapshot)
    const actor = createActor(this.machine as AnyStateMachine, { snapshot: persisted }) as Actor<TMachine>
    // An actor that errors must never take the host down with an uncaught exception.
    actor.subscribe({ error: () => undefined })
    actor.start()
    return actor
  }

  private async record(instanceId: string, typed: SnapshotFrom<TMachine>, from: string, event: string): Promise<void> {
    const at = this.options.clock.now()
    const meta = this.options.metaOf(typed)
    const snapshot = typed as AnyMachineSnapshot
    const state = stateToString(snapshot.value)
    const row: SnapshotRecord = {
      machineId: this.machine.id,
      machineVersion: this.machine.version ?? "0",
      instanceId,
      sessionId: meta.sessionId,
      state,
      terminal: snapshot.status === "done",
      snapshot: this.machine.getPersistedSnapshot(snapshot),
      document: meta.document,
      updatedAt: at,
    }
    await this.options.repository.commit(row, {
      machineId: this.machine.id,
      instanceId,
      sessionId: meta.sessionId,
      from,
      event,
      to: state,
      at,
    })
  }

  /** Runs work for one instance strictly after the previous work for it, whether that succeeded or failed. */
  private serialize<T>(instanceId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(instanceId) ?? Promise.resolve()
    const run = previous.then(work, work)
    const tail = run.catch(() => undefined)
    this.queues.set(instanceId, tail)
    void tail.then(() => {
      if (this.queues.get(instanceId) === tail) this.queues.delete(instanceId)
    })
    return run
  }
}
