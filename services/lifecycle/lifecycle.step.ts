import {
  type AnyActorRef,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventFromLogic,
  type EventObject,
  createActor,
  initialTransition,
  StateMachine,
  transition,
} from "xstate"
import type { RequestedEffect } from "./lifecycle.effects"

// One step of a machine and of the machines it invokes, computed purely: nothing runs, and the effects come back as
// data, as `transition` hands out a flat machine's. The host never runs an actor system (its actors hold snapshots),
// so what XState's system would do between a machine and its invoked children is done here, in XState's order:
// - an invoked machine starts in its initial state, and its entry effects are the step's;
// - an event a machine sends to its child (`sendTo`) is that child's next step, and its effects are the step's;
// - a child that reaches a final state is done: its parent takes `xstate.done.actor.<id>` with the child's output.
// An event handed on to a child that the child does not take refuses the whole step: the child holds that gate, and
// `accepts` asks it. A child's effects are its parent's to run (one implementations factory per lifecycle): they see
// the parent's context with the child's own over it. One level of children: no lifecycle invokes deeper (a child that
// sends to or invokes another fails the step). A child reports to its parent through its output: in a pure step it has
// no parent to `sendParent` to, and XState drops such a send without a word.

type Snapshot = AnyMachineSnapshot
type ExecutableAction = { type: string; info: unknown; params: unknown }

/** What one invoked machine was given in a step: started with its input, or handed an event. */
export type ChildDelivery = { childId: string; logic: AnyStateMachine } & ({ kind: "start"; input: unknown } | { kind: "event"; event: EventObject })

/** A step as computed: where it leads, the effects it asks for, and whether a child refused what it was handed. */
export interface DeepStep<TSnapshot = Snapshot> {
  snapshot: TSnapshot
  requested: RequestedEffect[]
  refused: boolean
  /** What the step gave each invoked machine, in order (a trace: the host decides nothing on it). */
  deliveries: ChildDelivery[]
}

/** The first step of a new instance (its invoked children started). */
export function initialStep(machine: AnyStateMachine, input: unknown): DeepStep {
  const [first, actions] = (initialTransition as (m: AnyStateMachine, i: unknown) => [Snapshot, ExecutableAction[]])(machine, input)
  return settle(machine, first, actions)
}

/** One event's step from `snapshot`; a step a child refuses changes nothing and asks for nothing. */
export function step<M extends AnyStateMachine>(machine: M, snapshot: Snapshot, event: EventFromLogic<M>): DeepStep {
  const [after, actions] = transition(machine as AnyStateMachine, snapshot, event) as [Snapshot, ExecutableAction[]]
  const settled = settle(machine, after, actions)
  return settled.refused ? { ...settled, snapshot, requested: [] } : settled
}

/** Whether the machine takes the event now: it does, and every child it hands the event on to takes it too. */
export function accepts<M extends AnyStateMachine>(machine: M, snapshot: Snapshot, event: EventFromLogic<M>): boolean {
  if (!snapshot.can(event)) return false
  // Without a running child nothing can refuse what the machine takes (the hot path: a tool call's gate).
  return Object.keys(snapshot.children).length === 0 || !step(machine, snapshot, event).refused
}

/** The child an invoked-machine ref stands for, when it is a state machine (other actor kinds are left alone). */
function machineChild(ref: unknown): { logic: AnyStateMachine; snapshot: Snapshot } | undefined {
  const actor = ref as { logic?: unknown; getSnapshot?: () => unknown } | undefined
  if (actor?.logic instanceof StateMachine && actor.getSnapshot !== undefined) return { logic: actor.logic, snapshot: actor.getSnapshot() as Snapshot }
  return undefined
}

function childIdOf(snapshot: Snapshot, to: unknown): string | undefined {
  if (typeof to === "string") return to
  return Object.entries(snapshot.children as Record<string, AnyActorRef | undefined>).find(([, ref]) => ref === to)?.[0]
}

/** The machine's actions of one step, with its children's steps and their ends worked in. */
function settle(machine: AnyStateMachine, first: Snapshot, actions: ExecutableAction[]): DeepStep {
  let snapshot = first
  let refused = false
  const requested: RequestedEffect[] = []
  const deliveries: ChildDelivery[] = []
  const childEnds: EventObject[] = []
  const childStep = (id: string, logic: AnyStateMachine, childAfter: Snapshot, childActions: ExecutableAction[]) => {
    for (const action of childActions) {
      // A child that sends or invokes in turn would be dropped here without a word: it fails loudly instead.
      if (action.type === "xstate.sendTo" || action.type === "xstate.spawnChild")
        throw new Error(`${logic.id}: the host steps one level of invoked machines, and a child's ${action.type} is not one of them`)
      if (action.type.startsWith("xstate.")) continue
      const info = action.info as { context?: object }
      requested.push({ ...action, info: { ...info, context: { ...snapshot.context, ...info.context } } })
    }
    snapshot = withChild(machine, snapshot, id, logic, childAfter)
    if (childAfter.status === "done") childEnds.push({ type: `xstate.done.actor.${id}`, output: childAfter.output, actorId: id } as EventObject)
  }
  for (const action of actions) {
    const params = action.params as { id?: string; input?: unknown; to?: unknown; targetId?: string; event?: EventObject } | undefined
    if (action.type === "xstate.spawnChild" && params?.id !== undefined) {
      const child = machineChild(snapshot.children[params.id])
      if (child === undefined) continue
      deliveries.push({ childId: params.id, logic: child.logic, kind: "start", input: params.input })
      const [childFirst, childActions] = (initialTransition as (m: AnyStateMachine, i: unknown) => [Snapshot, ExecutableAction[]])(child.logic, params.input)
      childStep(params.id, child.logic, childFirst, childActions)
      continue
    }
    if (action.type === "xstate.sendTo" && params?.event !== undefined) {
      // The child's ref may have been replaced by an earlier step of this one: its id is what stays.
      const id = params.targetId ?? childIdOf(snapshot, params.to)
      const child = id === undefined ? undefined : machineChild(snapshot.children[id])
      if (id === undefined || child === undefined) continue
      deliveries.push({ childId: id, logic: child.logic, kind: "event", event: params.event })
      if (!child.snapshot.can(params.event)) refused = true
      const [childAfter, childActions] = transition(child.logic, child.snapshot, params.event) as [Snapshot, ExecutableAction[]]
      childStep(id, child.logic, childAfter, childActions)
      continue
    }
    requested.push(action as RequestedEffect)
  }
  for (const end of childEnds) {
    const next = step(machine, snapshot, end as EventFromLogic<AnyStateMachine>)
    snapshot = next.snapshot
    refused ||= next.refused
    requested.push(...next.requested)
    deliveries.push(...next.deliveries)
  }
  return { snapshot, requested, refused, deliveries }
}

/** The parent's snapshot with one child's snapshot replaced, as a restore of its persisted form would make it. */
function withChild(machine: AnyStateMachine, snapshot: Snapshot, id: string, logic: AnyStateMachine, child: Snapshot): Snapshot {
  const persisted = machine.getPersistedSnapshot(snapshot) as unknown as { children: Record<string, { snapshot: unknown }> }
  const entry = persisted.children[id]
  if (entry === undefined) return snapshot
  persisted.children[id] = { ...entry, snapshot: logic.getPersistedSnapshot(child) }
  return restoredSnapshot(machine, persisted)
}

/**
 * A snapshot from its persisted form, children included, without running anything: an actor that is never started
 * restores it (XState's own restore), and only its snapshot is kept.
 */
export function restoredSnapshot(machine: AnyStateMachine, persisted: unknown): Snapshot {
  return createActor(machine, { snapshot: persisted as Snapshot }).getSnapshot() as Snapshot
}
