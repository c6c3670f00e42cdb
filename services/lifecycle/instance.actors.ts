import { type Actor, type AnyStateMachine, type EventFromLogic, type InputFrom, type SnapshotFrom, createActor } from "xstate"

// The running actors of one lifecycle, by instance id. Every actor runs an inert copy of the machine (its effects are
// no-ops): effects run only from the step the lifecycle computed, so nothing runs twice. The only place an actor is
// created.

export class InstanceActors<TMachine extends AnyStateMachine> {
  private readonly actors = new Map<string, Actor<TMachine>>()
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
    return this.actors.has(instanceId)
  }

  snapshot(instanceId: string): SnapshotFrom<TMachine> | undefined {
    return this.actors.get(instanceId)?.getSnapshot() as SnapshotFrom<TMachine> | undefined
  }

  *entries(): IterableIterator<[string, SnapshotFrom<TMachine>]> {
    for (const [id, actor] of this.actors) yield [id, actor.getSnapshot() as SnapshotFrom<TMachine>]
  }

  /** Starts the instance's actor (replacing one it had) from its input or from a snapshot. */
  spawn(instanceId: string, from: { input: InputFrom<TMachine> } | { snapshot: SnapshotFrom<TMachine> }): SnapshotFrom<TMachine> {
    this.actors.get(instanceId)?.stop()
    const options = "snapshot" in from ? { snapshot: this.machine.getPersistedSnapshot(from.snapshot) } : { input: from.input }
    const actor = createActor(this.inert as AnyStateMachine, options) as Actor<TMachine>
    // An actor that errors must never take the host down with an uncaught exception.
    actor.subscribe({ error: (error) => this.onError(instanceId, error) })
    actor.start()
    this.actors.set(instanceId, actor)
    return actor.getSnapshot() as SnapshotFrom<TMachine>
  }

  /** Sends the event to the instance's actor; its new snapshot. */
  move(instanceId: string, event: EventFromLogic<TMachine>): SnapshotFrom<TMachine> {
    const actor = this.actors.get(instanceId)
    if (actor === undefined) throw new Error(`unknown ${this.machine.id} instance ${instanceId}`)
    actor.send(event)
    return actor.getSnapshot() as SnapshotFrom<TMachine>
  }

  remove(instanceId: string): void {
    this.actors.get(instanceId)?.stop()
    this.actors.delete(instanceId)
  }

  stopAll(): void {
    for (const actor of this.actors.values()) actor.stop()
    this.actors.clear()
  }
}
