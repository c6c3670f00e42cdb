import { isDeepStrictEqual } from "node:util"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import {
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventFromLogic,
  type ExecutableActionsFrom,
  type InputFrom,
  type SnapshotFrom,
  initialTransition,
  transition,
} from "xstate"
import { createTestModel } from "xstate/graph"
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

interface ModelTest<M extends AnyStateMachine> {
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
  return (initialTransition as (machine: M, input: InputFrom<M>) => [SnapshotFrom<M>, unknown])(machine, input)[0]
}

/** Declares the model test of one machine: one test per path and per extension, then the coverage check. */
export function describeModel<M extends AnyStateMachine>(spec: ModelTest<M>): void {
  const coverage = new TransitionCoverage(spec.machine)
  const eventsIn = (state: SnapshotFrom<M>) => (typeof spec.events === "function" ? spec.events(state) : spec.events)
  let planned = 0
  let ran = 0

  for (const { name, input } of spec.configs) {
    const model = createTestModel(spec.machine, {
      input,
      // One state per value and context (the default also tells apart snapshots that differ in nothing observable).
      serializeState: (state: AnyMachineSnapshot) => JSON.stringify({ value: state.value, context: state.context, status: state.status }),
      events: (state: SnapshotFrom<M>) => eventsIn(state),
      // A final state takes no events. xstate/graph adds a bare `{ type }` for each event type a state handles and the
      // cases lack: only the cases the world can produce there are kept.
      filterEvents: (state: AnyMachineSnapshot, event: EventFromLogic<M>) =>
        state.status === "active" && eventsIn(state as SnapshotFrom<M>).some((e) => isDeepStrictEqual(e, event)),
    } as Parameters<typeof createTestModel<M>>[1])
    // Every reached state keeps its own path (by default a path that is a prefix of another is dropped, and with it
    // the extensions from the state it ends in).
    const paths = model.getShortestPaths({ limit: spec.limit ?? 20_000, allowDuplicatePaths: true })
    const extended = new Set<string>()
    const toExtend = paths.filter((path) => {
      const state = path.state as AnyMachineSnapshot
      // A finished lifecycle must refuse every event whatever its context: one probe per final state is enough.
      const key =
        state.status === "active"
          ? (spec.extensionKey?.(path.state) ?? JSON.stringify({ value: state.value, context: state.context }))
          : JSON.stringify(state.value)
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
            const [after, actions] = transition(spec.machine, before, event)
            await current.apply({ event, before, after, accepted: (before as AnyMachineSnapshot).can(event), actions })
            await current.agreesWith(after)
            before = after
          }
        })
      }
    })
  }

  afterAll(() => {
    const { machine, taken, total, missing } = coverage.report()
    const percent = ((100 * taken) / total).toFixed(1)
    console.log(`transition coverage of ${machine}: ${taken}/${total} (${percent} %)${missing.length ? `\n  not covered:\n  ${missing.join("\n  ")}` : ""}`)
    // A filtered run (vitest -t) replays a part of the paths: it reports, and only the full run must reach 100 %.
    if (ran === planned) expect(missing, `transition coverage of ${machine}`).toEqual([])
  })
}
