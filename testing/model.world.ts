import type { AnyMachineSnapshot, AnyStateMachine, EventFromLogic, InputFrom, SnapshotFrom } from "xstate"
import { TestModel } from "xstate/graph"
import { hostLogicOf, modelStateKey } from "./model.host"
import { longestReplays } from "./model.replays"
import { pathName } from "./path.name"

// What a model explores of one machine, and the replays it yields: shortest paths (xstate/graph) reach every (state,
// context) the events reach; each one is then extended by every event the world offers there, so targetless
// transitions and guard-refused events are exercised too (shortest paths alone dedupe them away), and a finished
// lifecycle is seen to refuse them all. A replay that another starts with is dropped (model.replays.ts). The model
// tests (model.template.ts) and `modelPaths` (model.paths.ts) take the very same replays from here. No test runner.

/** A machine's model world: the inputs to explore and the events the world can send, given a state. */
export interface ModelWorld<M extends AnyStateMachine> {
  machine: M
  /** Inputs to explore (each its own set of paths); coverage is counted over all of them together. */
  configs: readonly { name: string; input: InputFrom<M> }[]
  /** The events the world can produce in a state (a list, or per state when some only arise in some states). */
  events: readonly EventFromLogic<M>[] | ((state: SnapshotFrom<M>) => readonly EventFromLogic<M>[])
  /**
   * States that extensions treat as one (default: value and whole context): a state's extensions are replayed from
   * the first path that reaches its key. A key may leave out context no guard reads in that state.
   */
  extensionKey?: (state: SnapshotFrom<M>) => string
  /** Generous path-search bound. */
  limit?: number
}

/** A model world whose events are given per state (every world of the package's catalog). */
export interface ModelWorldByState<M extends AnyStateMachine> extends ModelWorld<M> {
  events: (state: SnapshotFrom<M>) => readonly EventFromLogic<M>[]
}

/** One replay: the events from the config's initial state, and its name (the model test's name for it). */
export interface ModelReplay<M extends AnyStateMachine> {
  events: readonly EventFromLogic<M>[]
  label: string
}

/** The events a world offers in a state. */
export function worldEventsIn<M extends AnyStateMachine>(world: ModelWorld<M>, state: SnapshotFrom<M>): readonly EventFromLogic<M>[] {
  return typeof world.events === "function" ? world.events(state) : world.events
}

/** The replays of one input of a world, in a fixed order (the same world, the same replays). */
export function modelReplays<M extends AnyStateMachine>(world: ModelWorld<M>, input: InputFrom<M>): ModelReplay<M>[] {
  const eventsIn = (state: SnapshotFrom<M>) => worldEventsIn(world, state)
  const model = new TestModel(hostLogicOf(world.machine), {
    input,
    // One state per value and context, its invoked machines' included (the default also tells apart snapshots that
    // differ in nothing observable).
    serializeState: (state: SnapshotFrom<M>) => modelStateKey(state as AnyMachineSnapshot),
    // A final state takes no events; elsewhere only the cases the world can produce there.
    events: (state: SnapshotFrom<M>) => ((state as AnyMachineSnapshot).status === "active" ? eventsIn(state) : []),
  })
  // Every reached state keeps its own path (by default a path that is a prefix of another is dropped, and with it
  // the extensions from the state it ends in).
  const paths = model.getShortestPaths({ limit: world.limit ?? 20_000, allowDuplicatePaths: true })
  const extended = new Set<string>()
  const toExtend = paths.filter((path) => {
    const state = path.state as AnyMachineSnapshot
    // A finished lifecycle must refuse every event whatever its context: one probe per final state is enough.
    const key = state.status === "active" ? (world.extensionKey?.(path.state) ?? modelStateKey(state)) : JSON.stringify(state.value)
    if (extended.has(key)) return false
    extended.add(key)
    return true
  })
  const cases = [...paths.map((path) => ({ path, extra: undefined })), ...toExtend.flatMap((path) => eventsIn(path.state).map((extra) => ({ path, extra })))]
  return longestReplays(
    cases.map(({ path, extra }) => ({
      events: [...path.steps.slice(1).map((s) => s.event as EventFromLogic<M>), ...(extra === undefined ? [] : [extra])],
      label: pathName((path.state as AnyMachineSnapshot).value, path.steps) + (extra === undefined ? "" : ` ⇒ ${JSON.stringify(extra).slice(0, 100)}`),
    })),
  )
}
