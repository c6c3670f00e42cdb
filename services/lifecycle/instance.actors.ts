import { type Actor, type AnyStateMachine, type InputFrom, type SnapshotFrom, createActor } from "xstate"
import { initialStep } from "./lifecycle.step"

// The running actors of one lifecycle, by instance id. Every actor runs an inert copy of the machine (its effects are
// no-ops) and only ever holds a snapshot the lifecycle's pure step computed (lifecycle.step.ts: a machine's invoked
// children step there too, never in an actor system): effects run only from that step, so nothing runs twice. The
// only place an actor is started. An instance restored from its record stays a resolved snapshot until its first event: a workspace may hold a
// thousand live plans, and most are only looked at (a tag, `can()`), if ever.

export class InstanceActors<TMachine extends AnyStateMachine> {
  private readonly actors = new Map<string, Actor<TMachine>>()
  /** Restored instances no event has reached yet: their snapshot, resolved by the machine, without an actor. */
  private readonly dormant = new Map<string, SnapshotFrom<TMachine>>()
  private readonly inert: TMachine

  constructor(
    private readonly machine: TMachine,
    effectNames: readonly string[],
    private readonly onError: (instanceId: string, error: unknown) => void,
  ) {
    const noop = () => undefined
    this.inert = machine.provide({ actions: Object.fromEntries(effectNames.map((name) => [name, noop])) }) as TMachine
  }

  has(instanceId: string): boolean {
    return this.actors.has(instanceId) || this.dormant.has(instanceId)
  }

  snapshot(instanceId: string): SnapshotFrom<TMachine> | undefined {
    return this.dormant.get(instanceId) ?? (this.actors.get(instanceId)?.getSnapshot() as SnapshotFrom<TMachine> | undefined)
  }

  *entries(): IterableIterator<[string, SnapshotFrom<TMachine>]> {
    yield* this.dormant
    for (const [id, actor] of this.actors) yield [id, actor.getSnapshot() as SnapshotFrom<TMachine>]
  }

  /** Holds a restored instance (replacing what it had); its actor starts with the first event sent to it. */
  restore(instanceId: string, snapshot: SnapshotFrom<TMachine>): SnapshotFrom<TMachine> {
    this.remove(instanceId)
    this.dormant.set(instanceId, snapshot)
    return snapshot
  }

  /** Starts the instance's actor (replacing one it had) from its input or from a snapshot. */
  spawn(instanceId: string, from: { input: InputFrom<TMachine> } | { snapshot: SnapshotFrom<TMachine> }): SnapshotFrom<TMachine> {
    this.dormant.delete(instanceId)
    this.actors.get(instanceId)?.stop()
    const snapshot = "snapshot" in from ? from.snapshot : (initialStep(this.machine, from.input).snapshot as SnapshotFrom<TMachine>)
    const actor = createActor(this.inert as AnyStateMachine, { snapshot: this.machine.getPersistedSnapshot(snapshot) }) as Actor<TMachine>
    // An actor that errors must never take the host down with an uncaught exception.
    actor.subscribe({ error: (error) => this.onError(instanceId, error) })
    actor.start()
    this.actors.set(instanceId, actor)
    return actor.getSnapshot() as SnapshotFrom<TMachine>
  }

  /** Moves the instance to where its step led (the lifecycle computed it, effects and all); its new snapshot. */
  move(instanceId: string, after: SnapshotFrom<TMachine>): SnapshotFrom<TMachine> {
    if (!this.has(instanceId)) throw new Error(`unknown ${this.machine.id} instance ${instanceId}`)
    return this.spawn(instanceId, { snapshot: after })
  }

  remove(instanceId: string): void {
    this.dormant.delete(instanceId)
    this.actors.get(instanceId)?.stop()
    this.actors.delete(instanceId)
  }

  stopAll(): void {
    this.dormant.clear()
    for (const actor of this.actors.values()) actor.stop()
    this.actors.clear()
  }
}
