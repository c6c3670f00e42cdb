import type { AnyMachineSnapshot, AnyStateMachine, EventFromLogic, InputFrom, SnapshotFrom, StateValue } from "xstate"
import { accepts, step } from "./lifecycle.step"
import { snapshotStateText } from "../../machines/state.text"
import { GateRefusal } from "./gate.refusal"
import type { LifecycleDefinition, LifecycleKernel } from "./lifecycle.definition"
import { inspectEverySnapshot } from "./lifecycle.inspection"
import type { Confirm, DialogRequest, SnapshotRecord } from "./lifecycle.ports"
import { firstStep } from "./lifecycle.birth"
import { type RequestedEffect, runEffects } from "./lifecycle.effects"
import { LifecycleRecorder } from "./lifecycle.recorder"
import { type RestoreOutcome, resolveRecord } from "./lifecycle.restore"
import { NO_STATE, SharedRecords } from "./shared.records"
import { InstanceActors } from "./instance.actors"
import { InstanceListeners } from "./instance.listeners"
import { InstanceQueues } from "./instance.queues"

/** Where outside truth says an instance stands; `event` names the transition row when it is not the follow's own name. */
export type FollowTarget<TMachine extends AnyStateMachine> = { value: StateValue; context: SnapshotFrom<TMachine>["context"]; event?: string }
type Listener<TMachine extends AnyStateMachine> = (snapshot: SnapshotFrom<TMachine>) => void

// The instances of one lifecycle on the host. Every step is computed first, purely (lifecycle.step.ts: `transition`, and
// the steps of the machines it invokes); the effects the machine asked for run from that result (the actors run an
// inert copy of the machine, so nothing runs twice), and the snapshot and its transition row are committed together.
// Two ways to step:
// - `dispatch` (awaited): effects first, and only if they all succeed the actor moves and the records are committed —
//   a failed effect leaves actor, database and document as they were;
// - `send` (immediate): the actor moves at once, the commit is queued and effects are started — for lifecycles fed
//   by a stream of events (output, ticks) whose callers cannot wait on the database.

export class Lifecycle<TMachine extends AnyStateMachine> {
  private readonly actors: InstanceActors<TMachine>
  private readonly queues = new InstanceQueues()
  private readonly listeners = new InstanceListeners<SnapshotFrom<TMachine>>()
  private readonly quiet: ReadonlySet<string>
  private readonly recorder: LifecycleRecorder<TMachine>
  /** The records every process writes: revisions read, records a refresh brought in, the shared step. */
  private readonly records: SharedRecords<TMachine>

  constructor(
    private readonly definition: LifecycleDefinition<TMachine>,
    private readonly kernel: LifecycleKernel,
  ) {
    this.actors = new InstanceActors(definition.machine, Object.keys(definition.implementations.actions), (instanceId, error) =>
      kernel.log.error(`${definition.machine.id} ${instanceId} failed: ${String(error)}`),
    )
    inspectEverySnapshot(kernel.inspection, definition.machine, this.listeners)
    this.quiet = new Set(definition.quietEvents ?? [])
    this.recorder = new LifecycleRecorder(definition, kernel)
    const { actors, listeners, recorder } = this
    this.records = new SharedRecords({ definition, kernel, actors, listeners, recorder, runEffects: (requested) => this.runEffects(requested, "await") })
  }

  get machine(): TMachine {
    return this.definition.machine
  }

  /** Whether every process on the workspace may step the instances (see `LifecycleDefinition.shared`). */
  get shared(): boolean {
    return this.definition.shared === true && this.definition.persist !== false
  }

  has(instanceId: string): boolean {
    return this.actors.has(instanceId)
  }

  /**
   * A live instance this process holds only because a refresh absorbed its record (another path got there before the
   * restore did): from now on it counts as restored here, and its snapshot is returned for the restore's follow-up.
   * Undefined when this process started, restored or already took it up, or when it has finished.
   */
  takeUp(instanceId: string): SnapshotFrom<TMachine> | undefined {
    if (!this.records.takeUp(instanceId)) return undefined
    const snapshot = this.snapshot(instanceId) as AnyMachineSnapshot | undefined
    return snapshot === undefined || snapshot.status === "done" ? undefined : (snapshot as SnapshotFrom<TMachine>)
  }

  snapshot(instanceId: string): SnapshotFrom<TMachine> | undefined {
    return this.actors.snapshot(instanceId)
  }

  /** Every instance with its current snapshot. */
  instances(): IterableIterator<[string, SnapshotFrom<TMachine>]> {
    return this.actors.entries()
  }

  /** Whether the instance would accept the event now (asks the machine; changes nothing). */
  can(instanceId: string, event: EventFromLogic<TMachine>): boolean {
    const snapshot = this.snapshot(instanceId) as AnyMachineSnapshot | undefined
    return snapshot !== undefined && accepts(this.machine, snapshot, event)
  }

  /** Throws the machine's refusal when the instance would not accept the event now; changes nothing. */
  check(instanceId: string, event: EventFromLogic<TMachine>): void {
    const snapshot = this.require(instanceId)
    if (!accepts(this.machine, snapshot as AnyMachineSnapshot, event)) throw this.refusal(snapshot, event)
  }

  /** The snapshot a new instance would start in, or the birth gate's refusal (pure: see `firstStep`). */
  birth(input: InputFrom<TMachine>): SnapshotFrom<TMachine> {
    return firstStep(this.definition, input)[0]
  }

  /** Starts a new instance: its initial effects (e.g. writing the document) run before anything is recorded. */
  create(instanceId: string, input: InputFrom<TMachine>): Promise<SnapshotFrom<TMachine>> {
    return this.bear(instanceId, (current) => {
      if (current !== undefined || this.actors.has(instanceId)) throw new Error(`${this.machine.id} ${instanceId} already exists`)
      return { input, from: NO_STATE, event: "xstate.init" }
    })
  }

  /**
   * Starts a finished instance again under its own id (a loop restarted where it ended): `input` builds the new birth
   * from the finished snapshot, and the birth gate decides on it as on any birth. Its transition row goes from the final
   * state, named `eventName`. Throws when the instance is unknown or still runs; a refused birth changes nothing.
   */
  rebirth(instanceId: string, eventName: string, input: (ended: SnapshotFrom<TMachine>) => InputFrom<TMachine>): Promise<SnapshotFrom<TMachine>> {
    return this.bear(instanceId, (current) => {
      const ended = this.records.ended(instanceId, current)
      return { input: input(ended), from: snapshotStateText(ended as AnyMachineSnapshot), event: eventName }
    })
  }

  /**
   * A birth, committed with its transition row once its initial effects ran (decided on the latest committed record
   * when shared): `decide` names its input, and the row's from and event, or throws why there is none.
   */
  private bear(
    instanceId: string,
    decide: (current: SnapshotRecord | undefined) => { input: InputFrom<TMachine>; from: string; event: string },
  ): Promise<SnapshotFrom<TMachine>> {
    if (this.shared) {
      return this.serialize(instanceId, () =>
        this.records.step(instanceId, async (current) => {
          const { input, from, event } = decide(current)
          const [first, requested] = firstStep(this.definition, input)
          return { after: first as SnapshotFrom<TMachine>, from, event, requested }
        }),
      )
    }
    return this.serialize(instanceId, async () => {
      const { input, from, event } = decide(undefined)
      const [, requested] = firstStep(this.definition, input)
      await this.runEffects(requested, "await")
      const first = this.actors.spawn(instanceId, { input })
      await this.recorder.record(instanceId, first, from, event)
      this.listeners.notify(instanceId, first)
      return first
    })
  }

  /** Starts a new instance at once; its record is queued and its initial effects started. */
  start(instanceId: string, input: InputFrom<TMachine>): SnapshotFrom<TMachine> {
    if (this.actors.has(instanceId)) throw new Error(`${this.machine.id} ${instanceId} already exists`)
    const [, requested] = firstStep(this.definition, input)
    const first = this.actors.spawn(instanceId, { input })
    this.recorder.recordLater(instanceId, first, NO_STATE, "xstate.init")
    this.listeners.notify(instanceId, first)
    this.startEffects(requested)
    return first
  }

  /** Applies one event through the machine's gates; throws `GateRefusal` with the machine's own words when refused. */
  async dispatch(instanceId: string, event: EventFromLogic<TMachine>): Promise<SnapshotFrom<TMachine>> {
    if (this.shared) {
      return this.serialize(instanceId, () =>
        this.records.step(instanceId, async (current) => {
          const before = this.records.latest(instanceId, current) as AnyMachineSnapshot
          const { snapshot: after, requested, refused } = step(this.machine, before, event)
          if (!before.can(event) || refused) throw this.refusal(before as SnapshotFrom<TMachine>, event)
          return { after: after as SnapshotFrom<TMachine>, from: snapshotStateText(before), event: event.type, requested }
        }),
      )
    }
    return this.serialize(instanceId, async () => {
      const before = this.require(instanceId) as AnyMachineSnapshot
      const { snapshot, requested, refused } = step(this.machine, before, event)
      if (!before.can(event) || refused) throw this.refusal(before as SnapshotFrom<TMachine>, event)
      await this.runEffects(requested, "await")
      const after = this.actors.move(instanceId, snapshot as SnapshotFrom<TMachine>)
      await this.recorder.record(instanceId, after, snapshotStateText(before), event.type)
      this.listeners.notify(instanceId, after)
      return after
    })
  }

  /**
   * Asks the user about the dialog the instance holds open, then gives the machine the answer `answer(allowed)` builds.
   * The answer names the dialog it answers (the context's `dialog` when the dialog opened), so the machine refuses it
   * with its own words when that dialog closed meanwhile. A confirm that fails is a no: answered, then its error is
   * thrown. An allow whose step cannot be committed (an effect failed, another instance holds the key) closes the
   * dialog as a no before its error is thrown, so no instance stays in a dialog nobody can answer.
   */
  async ask(
    instanceId: string,
    request: DialogRequest,
    confirm: Confirm,
    answer: (allowed: boolean) => EventFromLogic<TMachine>,
  ): Promise<{ allowed: boolean; snapshot: SnapshotFrom<TMachine> }> {
    let allowed: boolean
    try {
      allowed = await confirm(request)
    } catch (error) {
      await this.dispatch(instanceId, answer(false)).catch(() => undefined)
      throw error
    }
    try {
      return { allowed, snapshot: await this.dispatch(instanceId, answer(allowed)) }
    } catch (error) {
      if (allowed && !(error instanceof GateRefusal)) await this.dispatch(instanceId, answer(false)).catch(() => undefined)
      throw error
    }
  }

  /**
   * Applies one event at once. An event the machine does not accept now changes and records nothing (the snapshot
   * is returned as it was); an accepted one is recorded unless it is a quiet event that left the state as it was.
   */
  send(instanceId: string, event: EventFromLogic<TMachine>): SnapshotFrom<TMachine> {
    const before = this.require(instanceId) as AnyMachineSnapshot
    const { snapshot, requested, refused } = step(this.machine, before, event)
    if (!before.can(event) || refused) return before as SnapshotFrom<TMachine>
    const after = this.actors.move(instanceId, snapshot as SnapshotFrom<TMachine>)
    const from = snapshotStateText(before)
    const to = snapshotStateText(after as AnyMachineSnapshot)
    if (!(from === to && this.quiet.has(event.type))) this.recorder.recordLater(instanceId, after, from, event.type)
    this.listeners.notify(instanceId, after)
    this.startEffects(requested)
    return after
  }

  /** Calls `listener` with every new snapshot of the instance; returns the function that stops it. */
  subscribe(instanceId: string, listener: Listener<TMachine>): () => void {
    return this.listeners.subscribe(instanceId, listener)
  }

  /** Resolves with the first snapshot (the current one included) that satisfies `predicate`. */
  waitFor(instanceId: string, predicate: (snapshot: SnapshotFrom<TMachine>) => boolean): Promise<SnapshotFrom<TMachine>> {
    return this.listeners.waitFor(instanceId, this.require(instanceId), predicate)
  }

  /**
   * Replaces an instance's snapshot with one resolved from outside truth (a hand-edited document), validated by
   * the machine first; recorded as a transition under the given event name.
   */
  async reconcile(instanceId: string, value: StateValue, context: SnapshotFrom<TMachine>["context"], eventName: string): Promise<SnapshotFrom<TMachine>> {
    if (this.shared) {
      return this.serialize(instanceId, () =>
        this.records.step(instanceId, async (current) => this.records.replacement(instanceId, current, { value, context }, eventName)),
      ) as Promise<SnapshotFrom<TMachine>>
    }
    return this.serialize(instanceId, async () => this.records.replaceHere(instanceId, value, context, eventName))
  }

  /**
   * Reads outside truth inside the instance's queue and reconciles with it when `read` returns a target, so no
   * dispatch lands between the read and the replace. Resolves to the new snapshot, or undefined when nothing moved.
   */
  async follow(
    instanceId: string,
    read: (current: SnapshotFrom<TMachine> | undefined) => Promise<FollowTarget<TMachine> | undefined>,
    eventName: string,
  ): Promise<SnapshotFrom<TMachine> | undefined> {
    if (this.shared) {
      return this.serialize(instanceId, async () => {
        let moved = false
        const after = await this.records.step(instanceId, async (current) => {
          const known = current === undefined ? this.snapshot(instanceId) : this.records.latest(instanceId, current)
          const target = await read(known)
          if (target === undefined) return undefined
          moved = true
          return this.records.replacement(instanceId, current, target, target.event ?? eventName)
        })
        return moved ? after : undefined
      })
    }
    return this.serialize(instanceId, async () => {
      const target = await read(this.snapshot(instanceId))
      return target === undefined ? undefined : this.records.replaceHere(instanceId, target.value, target.context, target.event ?? eventName)
    })
  }

  /**
   * Restores one persisted instance, checked first (shape, version, context, machine): a record that no longer fits
   * is reported, never run and never thrown. Nothing is recorded: the instance starts where its record is.
   */
  restore(record: SnapshotRecord): RestoreOutcome<TMachine> {
    const resolved = resolveRecord(this.definition, record)
    if ("problem" in resolved) return { kind: "unfit", problem: resolved.problem }
    this.records.noteRevision(record.instanceId, record.revision)
    this.records.held(record.instanceId)
    const restored = this.actors.restore(record.instanceId, resolved.snapshot)
    this.kernel.inspection?.snapshot(this.machine, record.instanceId, restored as AnyMachineSnapshot)
    return { kind: "restored", snapshot: restored }
  }

  /**
   * Applies the first event to an instance just restored, only if its record is still the one restored: the step is
   * written in one write transaction that first compares the record's revision with the one read. Of several
   * processes restoring one record (a dead host's job), exactly one moves it; for the others it resolves undefined and
   * the instance leaves this process. Effects run after the commit, in the winner only.
   */
  async claim(instanceId: string, event: EventFromLogic<TMachine>): Promise<SnapshotFrom<TMachine> | undefined> {
    return this.serialize(instanceId, async () => {
      const before = this.require(instanceId) as AnyMachineSnapshot
      const { snapshot: after, requested, refused } = step(this.machine, before, event)
      if (!before.can(event) || refused) throw this.refusal(before as SnapshotFrom<TMachine>, event)
      const read = this.records.revisionOf(instanceId)
      const from = snapshotStateText(before)
      let won = false
      const written = await this.kernel.step(this.machine.id, instanceId, async (current) => {
        if (current === undefined || current.revision !== read) return undefined
        won = true
        return this.recorder.write(instanceId, after as SnapshotFrom<TMachine>, from, event.type)
      })
      if (!won) {
        this.remove(instanceId)
        return undefined
      }
      this.records.noteRevision(instanceId, written?.revision)
      const moved = this.actors.move(instanceId, after as SnapshotFrom<TMachine>)
      this.listeners.notify(instanceId, moved)
      this.startEffects(requested)
      return moved
    })
  }

  /**
   * A record another process wrote (shared lifecycles; the host's `refresh`): newer than what this process knows, it
   * replaces the instance here and observers are told. A finished instance this process never held is left out; a
   * record that does not fit is logged and left out.
   */
  absorb(record: SnapshotRecord): void {
    this.records.absorb(record)
  }

  /** Brings in what other processes wrote (shared lifecycles), before a decision is asked of this one's state. */
  refresh(): Promise<void> {
    return this.shared ? this.kernel.refresh() : Promise.resolve()
  }

  /** Calls `observer` with every new snapshot of every instance; returns the function that stops it. */
  observe(observer: (instanceId: string, snapshot: SnapshotFrom<TMachine>) => void): () => void {
    return this.listeners.observe(observer)
  }

  /** Drops an instance from memory (its records stay). */
  remove(instanceId: string): void {
    this.records.held(instanceId)
    this.actors.remove(instanceId)
    this.listeners.forget(instanceId)
  }

  /**
   * The finished instances, newest first, as their records say (from any process, before or after a restart), each
   * with the time its record was last written: resolved, never run. A record that no longer fits is left out.
   */
  finished(): Promise<{ snapshot: SnapshotFrom<TMachine>; updatedAt: number }[]> {
    return this.recorder.finishedRecords()
  }

  /** Retention: the terminal records beyond the newest `retention.keep` go. */
  prune(): Promise<void> {
    return this.recorder.prune()
  }

  stopAll(): void {
    this.actors.stopAll()
    this.listeners.clear()
  }

  /** Waits until every queued dispatch has finished and every record queued so far has landed (or failed). */
  async idle(): Promise<void> {
    await this.queues.idle()
    await this.recorder.settled()
  }

  private require(instanceId: string): SnapshotFrom<TMachine> {
    const snapshot = this.snapshot(instanceId)
    if (snapshot === undefined) throw new Error(`unknown ${this.machine.id} instance ${instanceId}`)
    return snapshot
  }

  private refusal(snapshot: SnapshotFrom<TMachine>, event: EventFromLogic<TMachine>): GateRefusal {
    return new GateRefusal(this.machine.id, event.type, this.definition.explain(snapshot, event))
  }

  /** Starts the effects of an immediate step: whatever goes wrong is logged, never thrown into the host. */
  private startEffects(requested: readonly RequestedEffect[]): void {
    this.runEffects(requested, "start").catch((error: unknown) => this.kernel.log.warn(`${this.machine.id}: an effect failed: ${String(error)}`))
  }

  private runEffects(requested: readonly RequestedEffect[], mode: "await" | "start"): Promise<void> {
    return runEffects(this.definition.implementations, requested, mode, this.kernel.log, this.machine.id)
  }

  /** Runs work for one instance strictly after the previous work for it, whether that succeeded or failed. */
  private serialize<T>(instanceId: string, work: () => Promise<T>): Promise<T> {
    return this.queues.run(instanceId, work)
  }
}
