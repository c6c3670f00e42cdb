import type { AnyMachineSnapshot, AnyStateMachine, SnapshotFrom, StateValue } from "xstate"
import { snapshotStateText } from "../../machines/state.text"
import { ExclusiveKeyTaken } from "./exclusive.key"
import type { LifecycleDefinition, LifecycleKernel } from "./lifecycle.definition"
import type { SnapshotRecord } from "./lifecycle.ports"
import type { RequestedEffect } from "./lifecycle.effects"
import type { LifecycleRecorder } from "./lifecycle.recorder"
import { resolveRecord } from "./lifecycle.restore"
import type { InstanceActors } from "./instance.actors"
import type { InstanceListeners } from "./instance.listeners"

/** The "from" of an instance's first transition row. */
export const NO_STATE = "(none)"

/** A shared step as decided: the snapshot it leads to and the transition row's from and event. */
export type SharedStep<TMachine extends AnyStateMachine> = {
  after: SnapshotFrom<TMachine>
  from: string
  event: string
  requested?: readonly RequestedEffect[]
}

/** What a lifecycle's records share with the instances in memory: its parts the shared steps move. */
export interface SharedParts<TMachine extends AnyStateMachine> {
  definition: LifecycleDefinition<TMachine>
  kernel: LifecycleKernel
  actors: InstanceActors<TMachine>
  listeners: InstanceListeners<SnapshotFrom<TMachine>>
  recorder: LifecycleRecorder<TMachine>
  /** Runs the effects a step asked for, awaited. */
  runEffects: (requested: readonly RequestedEffect[]) => Promise<void>
}

// One lifecycle's view of the records every process writes (shared lifecycles, and the revision a claim compares):
// which revision of each record this process last read or wrote, the records it holds only because a refresh brought
// them in, and the step that decides on the latest committed record inside the database's write transaction. Also the
// reads and writes a step of any lifecycle shares with them: a finished instance's record (a rebirth), a replacement.

export class SharedRecords<TMachine extends AnyStateMachine> {
  /** The revision of each instance's record this process last read or wrote. */
  private readonly revisions = new Map<string, number>()
  /**
   * Instances this process knows only because a refresh absorbed another process's record: not started, restored or
   * taken up here. The restore takes them up (see `takeUp`), so a refresh that ran first never costs one its restore.
   */
  private readonly absorbedOnly = new Set<string>()

  constructor(private readonly parts: SharedParts<TMachine>) {}

  revisionOf(instanceId: string): number | undefined {
    return this.revisions.get(instanceId)
  }

  /** This process read or wrote the instance's record at `revision` (a restore, a claim). */
  noteRevision(instanceId: string, revision: number | undefined): void {
    if (revision !== undefined) this.revisions.set(instanceId, revision)
  }

  /** The instance was started, restored or dropped here: it is no longer one a refresh alone brought in. */
  held(instanceId: string): void {
    this.absorbedOnly.delete(instanceId)
  }

  /** Whether the instance was known only through a refresh; from now on it counts as taken up here. */
  takeUp(instanceId: string): boolean {
    return this.absorbedOnly.delete(instanceId)
  }

  /**
   * A record another process wrote: newer than what this process knows, it replaces the instance here and observers
   * are told. A finished instance this process never held is left out; a record that does not fit is logged and left out.
   */
  absorb(record: SnapshotRecord): void {
    const known = this.revisions.get(record.instanceId)
    if (known !== undefined && (record.revision ?? 0) <= known) return
    const { actors, definition, kernel } = this.parts
    if (record.terminal && !actors.has(record.instanceId)) return
    const resolved = resolveRecord(definition, record)
    if ("problem" in resolved) {
      kernel.log.warn(`another process wrote ${resolved.problem}; this one keeps what it had`)
      return
    }
    if (!actors.has(record.instanceId)) this.absorbedOnly.add(record.instanceId)
    this.adopt(record.instanceId, resolved.snapshot, record.revision)
  }

  /** The instance as its latest committed record says (replacing this process's copy when another process moved it). */
  latest(instanceId: string, current: SnapshotRecord | undefined): SnapshotFrom<TMachine> {
    if (current !== undefined && current.revision !== this.revisions.get(instanceId)) {
      const resolved = resolveRecord(this.parts.definition, current)
      if ("problem" in resolved) throw new Error(`the latest record of ${resolved.problem}`)
      this.adopt(instanceId, resolved.snapshot, current.revision)
    }
    return this.require(instanceId)
  }

  /**
   * The instance's finished snapshot, as its latest committed record says (or, without a database, as this process
   * holds it): what a rebirth starts from. Throws when there is none, the record does not fit, or the instance still runs.
   */
  ended(instanceId: string, current: SnapshotRecord | undefined): SnapshotFrom<TMachine> {
    const { actors, definition } = this.parts
    const name = `${definition.machine.id} ${instanceId}`
    let snapshot = actors.snapshot(instanceId)
    if (current !== undefined) {
      const resolved = resolveRecord(definition, current)
      if ("problem" in resolved) throw new Error(`the latest record of ${resolved.problem}`)
      snapshot = resolved.snapshot
    }
    if (snapshot === undefined) throw new Error(`unknown ${name}`)
    if ((snapshot as AnyMachineSnapshot).status !== "done") throw new Error(`${name} still runs: only a finished instance starts again`)
    return snapshot
  }

  /** Where outside truth says the instance stands, as a step from its latest record (or from a record that no longer fits). */
  replacement(
    instanceId: string,
    current: SnapshotRecord | undefined,
    target: { value: StateValue; context: SnapshotFrom<TMachine>["context"] },
    eventName: string,
  ): SharedStep<TMachine> {
    const { actors, definition } = this.parts
    // A record that no longer fits is what a replacement is for: it is replaced, not read.
    const fits = current !== undefined && !("problem" in resolveRecord(definition, current))
    const known = fits ? this.latest(instanceId, current) : actors.snapshot(instanceId)
    const from = current !== undefined && !fits ? current.state : known === undefined ? NO_STATE : snapshotStateText(known as AnyMachineSnapshot)
    const after = definition.machine.resolveState({ value: target.value, context: target.context }) as SnapshotFrom<TMachine>
    return { after, from, event: eventName }
  }

  /**
   * An instance of a lifecycle one process owns, replaced here by a snapshot resolved from outside truth (a hand-edited
   * document), and recorded as a transition named `eventName`.
   */
  async replaceHere(instanceId: string, value: StateValue, context: SnapshotFrom<TMachine>["context"], eventName: string): Promise<SnapshotFrom<TMachine>> {
    const { actors, definition, recorder, listeners } = this.parts
    const resolved = definition.machine.resolveState({ value, context }) as SnapshotFrom<TMachine>
    const previous = actors.snapshot(instanceId) as AnyMachineSnapshot | undefined
    const after = actors.spawn(instanceId, { snapshot: resolved })
    await recorder.record(instanceId, after, previous === undefined ? NO_STATE : snapshotStateText(previous), eventName)
    listeners.notify(instanceId, after)
    return after
  }

  /**
   * One step of a shared instance: decided on the latest committed record inside the database's write transaction,
   * effects included, so no process decides on a stale record or lands over a newer one. Then this process's actor
   * takes the state written.
   */
  async step(instanceId: string, decide: (current: SnapshotRecord | undefined) => Promise<SharedStep<TMachine> | undefined>): Promise<SnapshotFrom<TMachine>> {
    const { definition, kernel, recorder } = this.parts
    const machineId = definition.machine.id
    let decided: SharedStep<TMachine> | undefined
    const written = await kernel.step(machineId, instanceId, async (current, holderOf) => {
      decided = await decide(current)
      if (decided === undefined) return undefined
      // Refused before any effect runs: a document is never written for a step the database would not take.
      const key = recorder.write(instanceId, decided.after, decided.from, decided.event).snapshot.exclusiveKey ?? null
      const holder = key === null ? undefined : await holderOf(key)
      if (key !== null && holder !== undefined && !(holder.machineId === machineId && holder.instanceId === instanceId)) {
        throw new ExclusiveKeyTaken(key, holder.machineId, holder.instanceId)
      }
      await this.parts.runEffects(decided.requested ?? [])
      // Stamped after the effects: a document written by the step is never newer than its record.
      return recorder.write(instanceId, decided.after, decided.from, decided.event)
    })
    if (decided === undefined) return this.require(instanceId)
    this.adopt(instanceId, decided.after, written?.revision)
    // Stepped here: the instance is this process's, even where a refresh read the step's record before this adoption.
    this.held(instanceId)
    if ((decided.after as AnyMachineSnapshot).status === "done") recorder.finished()
    return this.require(instanceId)
  }

  private adopt(instanceId: string, snapshot: SnapshotFrom<TMachine>, revision: number | undefined): void {
    const spawned = this.parts.actors.spawn(instanceId, { snapshot })
    this.noteRevision(instanceId, revision)
    this.parts.listeners.notify(instanceId, spawned)
  }

  private require(instanceId: string): SnapshotFrom<TMachine> {
    const snapshot = this.parts.actors.snapshot(instanceId)
    if (snapshot === undefined) throw new Error(`unknown ${this.parts.definition.machine.id} instance ${instanceId}`)
    return snapshot
  }
}
