import { afterAll, afterEach, describe, expect, it } from "vitest"
import type { ActorLogic, AnyMachineSnapshot, AnyStateMachine, EventFromLogic, ExecutableActionsFrom, InputFrom, SnapshotFrom } from "xstate"
import { TestModel } from "xstate/graph"
import { initialStep, step } from "../services/lifecycle/lifecycle.step"
import { TransitionCoverage } from "./model.coverage"
import { longestReplays } from "./model.replays"
import { pathName } from "./path.name"

// One template for every lifecycle's model test: paths generated from the machine with xstate/graph drive the real
// service (through a SUT adapter, built in one factory per machine), and at every step the adapter checks that the
// service, its store and the model agree. Shortest paths reach every (state, context) the event cases reach; each
// one is then extended by every event case, so targetless transitions and guard-refused events are exercised too
// (shortest paths alone dedupe them away), and a finished lifecycle is seen to refuse them all. A path that another
// path starts with runs only as part of that one (model.replays.ts). The run prints the machine's transition coverage
// and fails below 100 %.

/** One model step as the SUT adapter replays it: the event, the model before and after, and what the model did. */
export interface ModelStep<M extends AnyStateMachine> {
  event: EventFromLogic<M>
  before: SnapshotFrom<M>
  after: SnapshotFrom<M>
  /** The model's verdict (`can()` before the event): the SUT must accept or refuse alike. */
  accepted: boolean
  /** The effects the model asked for in this step (placeholder actions with their params, assigns included). */
  actions: ExecutableActionsFrom<M>[]
}

/** A service under test for one path, started fresh at the machine's initial state. */
export interface ModelSut<M extends AnyStateMachine> {
  apply(step: ModelStep<M>): Promise<void>
  /** The service's public answers and its store say what the model says. */
  agreesWith(model: SnapshotFrom<M>): Promise<void>
  stop(): Promise<void>
}

export interface ModelTest<M extends AnyStateMachine> {
  machine: M
  /** Inputs to explore (each its own set of paths); coverage is counted over all of them together. */
  configs: readonly { name: string; input: InputFrom<M> }[]
  /** The events the world can produce in a state (a list, or per state when some only arise in some states). */
  events: readonly EventFromLogic<M>[] | ((state: SnapshotFrom<M>) => readonly EventFromLogic<M>[])
  start(input: InputFrom<M>): Promise<ModelSut<M>>
  /**
   * States that extensions treat as one (default: value and whole context): a state's extensions are replayed from
   * the first path that reaches its key. A key may leave out context no guard reads in that state.
   */
  extensionKey?: (state: SnapshotFrom<M>) => string
  /** Generous path-search bound. */
  limit?: number
}

function initialSnapshot<M extends AnyStateMachine>(machine: M, input: InputFrom<M>): SnapshotFrom<M> {
  return initialStep(machine, input).snapshot as SnapshotFrom<M>
}

/**
 * The machine as the host steps it (lifecycle.step.ts): with the machines it invokes, so a path walks a phase's pass
 * too. xstate/graph's createTestModel refuses a machine that invokes; its TestModel walks any actor logic.
 */
export function hostLogicOf<M extends AnyStateMachine>(machine: M): ActorLogic<SnapshotFrom<M>, EventFromLogic<M>, InputFrom<M>> {
  return {
    transition: (snapshot, event) => step(machine, snapshot as AnyMachineSnapshot, event).snapshot as SnapshotFrom<M>,
    getInitialSnapshot: (_scope, input) => initialSnapshot(machine, input as InputFrom<M>),
    getPersistedSnapshot: (snapshot) => machine.getPersistedSnapshot(snapshot),
  }
}

/** A state as a path search tells states apart: value, context and status, and those of the machines it invokes. */
export function modelStateKey(state: AnyMachineSnapshot): string {
  const children = Object.fromEntries(
    Object.entries(state.children as Record<string, { getSnapshot(): AnyMachineSnapshot } | undefined>).map(([id, ref]) => {
      const child = ref?.getSnapshot()
      return [id, child === undefined ? null : { value: child.value, context: child.context, status: child.status }]
    }),
  )
  return JSON.stringify({ value: state.value, context: state.context, status: state.status, children })
}

/** Declares the model test of one machine: one test per path and per extension, then the coverage check. */
export function describeModel<M extends AnyStateMachine>(spec: ModelTest<M>): void {
  const coverage = new TransitionCoverage(spec.machine)
  const eventsIn = (state: SnapshotFrom<M>) => (typeof spec.events === "function" ? spec.events(state) : spec.events)
  let planned = 0
  let ran = 0

  for (const { name, input } of spec.configs) {
    const model = new TestModel(hostLogicOf(spec.machine), {
      input,
      // One state per value and context, its invoked machines' included (the default also tells apart snapshots that
      // differ in nothing observable).
      serializeState: (state: SnapshotFrom<M>) => modelStateKey(state as AnyMachineSnapshot),
      // A final state takes no events; elsewhere only the cases the world can produce there.
      events: (state: SnapshotFrom<M>) => ((state as AnyMachineSnapshot).status === "active" ? eventsIn(state) : []),
    })
    // Every reached state keeps its own path (by default a path that is a prefix of another is dropped, and with it
    // the extensions from the state it ends in).
    const paths = model.getShortestPaths({ limit: spec.limit ?? 20_000, allowDuplicatePaths: true })
    const extended = new Set<string>()
    const toExtend = paths.filter((path) => {
      const state = path.state as AnyMachineSnapshot
      // A finished lifecycle must refuse every event whatever its context: one probe per final state is enough.
      const key = state.status === "active" ? (spec.extensionKey?.(path.state) ?? modelStateKey(state)) : JSON.stringify(state.value)
      if (extended.has(key)) return false
      extended.add(key)
      return true
    })
    const cases = [...paths.map((path) => ({ path, extra: undefined })), ...toExtend.flatMap((path) => eventsIn(path.state).map((extra) => ({ path, extra })))]
    const replays = longestReplays(
      cases.map(({ path, extra }) => ({
        events: [...path.steps.slice(1).map((s) => s.event as EventFromLogic<M>), ...(extra === undefined ? [] : [extra])],
        label: pathName((path.state as AnyMachineSnapshot).value, path.steps) + (extra === undefined ? "" : ` ⇒ ${JSON.stringify(extra).slice(0, 100)}`),
      })),
    )
    planned += replays.length

    describe(`${spec.machine.id} machine paths (${name}) against the real service and its store`, () => {
      let sut: ModelSut<M> | undefined
      afterEach(async () => {
        await sut?.stop()
        sut = undefined
      })

      for (const { events, label } of replays) {
        it(label, async () => {
          ran += 1
          coverage.record(input, events)
          const current = await spec.start(input)
          sut = current
          let before = initialSnapshot(spec.machine, input)
          await current.agreesWith(before)
          for (const event of events) {
            const { snapshot, requested, refused } = step(spec.machine, before as AnyMachineSnapshot, event)
            const after = snapshot as SnapshotFrom<M>
            const actions = requested as ExecutableActionsFrom<M>[]
            await current.apply({ event, before, after, accepted: (before as AnyMachineSnapshot).can(event) && !refused, actions })
            await current.agreesWith(after)
            before = after
          }
        })
      }
    })
  }

  afterAll(() => {
    // The machine's, and each machine it invokes (every state and transition of a loop's pass).
    const reports = coverage.reports()
    for (const { machine, taken, total, missing } of reports) {
      const percent = ((100 * taken) / total).toFixed(1)
      console.log(`transition coverage of ${machine}: ${taken}/${total} (${percent} %)${missing.length ? `\n  not covered:\n  ${missing.join("\n  ")}` : ""}`)
    }
    if (ran === planned) for (const { machine, missing } of reports) expect(missing, `transition coverage of ${machine}`).toEqual([])
  })
}
