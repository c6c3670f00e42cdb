import {
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventFromLogic,
  type EventObject,
  type InputFrom,
  type InspectionEvent,
  StateMachine,
  type StateValue,
  createActor,
  getInitialMicrosteps,
} from "xstate"
import { type ChildDelivery, initialStep, step } from "../services/lifecycle/lifecycle.step"

// Transition coverage of a machine, measured on the machine the code runs.
//
// "All transitions" is read from the machine definition: every state node's `transitions` (its `on` handlers, one
// candidate list per event) and its `always` list. Each candidate of each list is one outcome, "taken"; a candidate
// with a guard adds a second outcome, "refused": the event arrived while that node was active, the candidates before
// it had refused too (so the guard was really asked), and the guard said no. Coverage is the share of these outcomes
// that some replayed path produced. Events that a service only asks about (`snapshot.can(...)`) and never sends count
// the same way: the recorder replays them as sent, since `can()` asks the very same candidates.
//
// A machine that invokes machines (a loop's phases invoke its pass) is replayed as the host steps it
// (lifecycle.step.ts), and each machine it invokes is covered on its own: every run of a child, from the input it was
// started with through the events it was handed, is replayed on the child's coverage. Each event is asked of an actor
// restored from the model's snapshot, so an event a child refuses (the host's step changes nothing) never leaves the
// parent's half of it behind.

type AnyNode = AnyStateMachine["root"]
type AnyTransition = ReturnType<AnyNode["transitions"]["get"]> extends (infer T)[] | undefined ? T : never

interface Outcome {
  node: AnyNode
  event: string
  index: number
  refused: boolean
}

function guardName(guard: unknown): string {
  if (typeof guard === "string") return guard
  if (typeof guard === "function") return guard.name || "inline"
  if (guard && typeof guard === "object" && "type" in guard) return String((guard as { type: unknown }).type)
  return "guard"
}

function describeOutcome({ node, event, index, refused }: Outcome, transition: AnyTransition): string {
  const targets = transition.target?.map((t) => t.id).join(", ") ?? "(no target)"
  const guard = transition.guard === undefined ? "" : ` [${guardName(transition.guard)}]`
  return `${node.id} ${event || "always"} #${index}${guard} → ${targets}${refused ? ": refused" : ""}`
}

function allNodes(node: AnyNode): AnyNode[] {
  return [node, ...Object.values(node.states).flatMap((child) => allNodes(child as AnyNode))]
}

function candidatesOf(node: AnyNode, event: string): AnyTransition[] {
  return (event === "" ? node.always : node.transitions.get(event)) ?? []
}

/** The active atomic state nodes of a state value, each with its ancestors (leaf first, root last). */
function activeChains(root: AnyNode, value: StateValue): AnyNode[][] {
  const leaves: AnyNode[] = []
  const walk = (node: AnyNode, v: StateValue | undefined): void => {
    if (v === undefined) return void leaves.push(node)
    if (typeof v === "string") return void leaves.push(node.states[v] as AnyNode)
    const entries = Object.entries(v)
    if (entries.length === 0) return void leaves.push(node)
    for (const [key, child] of entries) walk(node.states[key] as AnyNode, child as StateValue | undefined)
  }
  walk(root, value)
  return leaves.map((leaf) => {
    const chain: AnyNode[] = []
    for (let n: AnyNode | undefined = leaf; n !== undefined; n = n.parent as AnyNode | undefined) chain.push(n)
    return chain
  })
}

/** Custom (placeholder) actions become no-ops for the recorder's own actor; built-in ones (assign, emit, …) stay. */
function inertMachine<M extends AnyStateMachine>(machine: M): M {
  const actions = Object.fromEntries(
    Object.entries(machine.implementations.actions)
      .filter(([, action]) => typeof action === "function" && !("type" in action))
      .map(([name]) => [name, () => undefined]),
  )
  // The machines it invokes run inert too.
  const actors = Object.fromEntries(Object.entries(childMachines(machine)).map(([name, child]) => [name, inertMachine(child)]))
  return machine.provide({ actions, actors } as Parameters<M["provide"]>[0]) as M
}

/** The machines a machine may invoke, by the name it invokes them by. */
function childMachines(machine: AnyStateMachine): Record<string, AnyStateMachine> {
  return Object.fromEntries(
    Object.entries(machine.implementations.actors).filter((entry): entry is [string, AnyStateMachine] => entry[1] instanceof StateMachine),
  )
}

/** Whether an inspection is the replayed machine's own (its invoked children report theirs to the same inspector). */
const isRoot = (inspection: InspectionEvent): boolean => (inspection.actorRef as { _parent?: unknown })._parent === undefined

export interface CoverageReport {
  machine: string
  taken: number
  total: number
  missing: string[]
}

export class TransitionCoverage<M extends AnyStateMachine> {
  private readonly outcomes = new Map<string, Outcome>()
  private readonly seen = new Set<string>()
  private readonly inert: M
  /** The coverage of each machine this one invokes, by machine id. */
  private readonly children = new Map<string, TransitionCoverage<AnyStateMachine>>()

  constructor(private readonly machine: M) {
    this.inert = inertMachine(machine)
    for (const child of Object.values(childMachines(machine))) this.children.set(child.id, new TransitionCoverage(child))
    for (const node of allNodes(machine.root as AnyNode)) {
      for (const event of ["", ...node.transitions.keys()]) {
        candidatesOf(node, event).forEach((transition, index) => {
          this.outcomes.set(this.key(node, event, index, false), { node, event, index, refused: false })
          if (transition.guard !== undefined) this.outcomes.set(this.key(node, event, index, true), { node, event, index, refused: true })
        })
      }
    }
  }

  /** Replays `events` from the initial state of `input` and notes every outcome they produce (its children's too). */
  record(input: InputFrom<M>, events: readonly EventFromLogic<M>[]): void {
    const micro: { snapshot: { value: StateValue }; transitions: AnyTransition[] }[] = []
    const inspect = (inspection: InspectionEvent) => {
      if (inspection.type !== "@xstate.microstep" || !isRoot(inspection)) return
      const { _transitions, snapshot } = inspection as InspectionEvent & { _transitions: AnyTransition[]; snapshot: { value: StateValue } }
      micro.push({ snapshot, transitions: _transitions })
    }
    const runs = new ChildRuns(this.children)
    const actor = createActor(this.inert, { input, inspect } as Parameters<typeof createActor<M>>[1])
    actor.start()
    actor.stop()
    // The configuration entered first, before any eventless transition: the recorder's actor does not report it.
    const initialSteps = getInitialMicrosteps as (machine: M, input: InputFrom<M>) => [{ value: StateValue }, unknown][]
    this.noteEventless(micro.splice(0), initialSteps(this.inert, input)[0]?.[0].value)
    let current = initialStep(this.machine, input)
    runs.deliver(current.deliveries)
    for (const event of events) {
      const before = current.snapshot
      if (before.status !== "active") break
      const probe = createActor(this.inert, { snapshot: this.machine.getPersistedSnapshot(before), inspect } as Parameters<typeof createActor<M>>[1])
      probe.start()
      probe.send(event)
      probe.stop()
      const steps = micro.splice(0)
      const first = steps[0]?.transitions.some((t) => t.eventType === event.type) ? steps.shift() : undefined
      this.noteSelection(before.value, event.type, first?.transitions ?? [])
      this.noteEventless(steps, first?.snapshot.value)
      current = step(this.machine, before as AnyMachineSnapshot, event)
      runs.deliver(current.deliveries)
    }
    runs.flushAll()
  }

  /** This machine's coverage, and each of the machines it invokes. */
  reports(): CoverageReport[] {
    return [this.report(), ...[...this.children.values()].flatMap((child) => child.reports())]
  }

  report(): CoverageReport {
    const missing = [...this.outcomes].filter(([key]) => !this.seen.has(key)).map(([, outcome]) => this.describe(outcome))
    return { machine: this.machine.id, taken: this.outcomes.size - missing.length, total: this.outcomes.size, missing }
  }

  /** Every outcome of the machine, described (for a test that the universe is what the comment says). */
  all(): string[] {
    return [...this.outcomes.values()].map((outcome) => this.describe(outcome))
  }

  private describe(outcome: Outcome): string {
    return describeOutcome(outcome, candidatesOf(outcome.node, outcome.event)[outcome.index] as AnyTransition)
  }

  private key(node: AnyNode, event: string, index: number, refused: boolean): string {
    return `${node.id}\u0000${event}\u0000${index}\u0000${refused}`
  }

  /** From each active leaf upwards, nodes are asked in order until one selects: the asked guards before it refused. */
  private noteSelection(value: StateValue, event: string, selected: readonly AnyTransition[]): void {
    // The recorder's actor runs the inert copy: its transitions are other objects, at the same places (same ids).
    for (const chain of activeChains(this.inert.root as AnyNode, value)) {
      for (const node of chain) {
        const candidates = candidatesOf(node, event)
        const hit = candidates.findIndex((c) => selected.includes(c))
        const asked = hit < 0 ? candidates.length : hit
        for (let i = 0; i < asked; i++) if (candidates[i]?.guard !== undefined) this.seen.add(this.key(node, event, i, true))
        if (hit >= 0) {
          this.seen.add(this.key(node, event, hit, false))
          break
        }
      }
    }
  }

  /**
   * Eventless transitions are asked after every microstep until none is enabled (the last one asks and selects none).
   * A microstep of another event (an invoked machine's end, `xstate.done.actor.<id>`) starts the next macrostep.
   */
  private noteEventless(steps: { snapshot: { value: StateValue }; transitions: AnyTransition[] }[], after: StateValue | undefined): void {
    let value = after
    for (const step of steps) {
      const event = step.transitions.find((t) => t.eventType !== "")?.eventType
      if (value !== undefined) {
        if (event !== undefined) this.noteSelection(value, "", [])
        this.noteSelection(value, event ?? "", step.transitions)
      }
      value = step.snapshot.value
    }
    if (value !== undefined) this.noteSelection(value, "", [])
  }
}

/** The runs of a machine's children during one replay: each from its start to the next start (or the replay's end). */
class ChildRuns {
  private readonly open = new Map<string, { coverage: TransitionCoverage<AnyStateMachine> | undefined; input: unknown; events: EventObject[] }>()

  constructor(private readonly coverages: ReadonlyMap<string, TransitionCoverage<AnyStateMachine>>) {}

  deliver(deliveries: readonly ChildDelivery[]): void {
    for (const delivery of deliveries) {
      if (delivery.kind === "event") {
        this.open.get(delivery.childId)?.events.push(delivery.event)
        continue
      }
      this.flush(delivery.childId)
      this.open.set(delivery.childId, { coverage: this.coverages.get(delivery.logic.id), input: delivery.input, events: [] })
    }
  }

  flushAll(): void {
    for (const childId of [...this.open.keys()]) this.flush(childId)
  }

  private flush(childId: string): void {
    const run = this.open.get(childId)
    this.open.delete(childId)
    run?.coverage?.record(run.input as never, run.events as never)
  }
}
