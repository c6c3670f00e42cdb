import { describe, expect, it } from "vitest"
import { type AnyMachineSnapshot, assertEvent, assign, sendTo, setup } from "xstate"
import type { LifecycleDefinition } from "../../../services/lifecycle/lifecycle.definition"
import { resolveRecord } from "../../../services/lifecycle/lifecycle.restore"
import { accepts, initialStep, step } from "../../../services/lifecycle/lifecycle.step"

// The host's pure step through invoked machines, on a parent whose one state invokes a counting child: the child's
// entry effect and its end come back within the parent's step, a child's refusal refuses the step, and a record
// restores with its child (or is unfit without it).

type ChildEvent = { type: "add"; n: number }
const child = setup({
  types: { context: {} as { total: number; limit: number }, input: {} as { limit: number }, events: {} as ChildEvent },
  guards: {
    fits: ({ context, event }) => context.total + event.n <= context.limit,
    isFull: ({ context }) => context.total >= context.limit,
  },
  actions: {
    greet: (_, _params: { who: string }) => {
      throw new Error("greet not provided")
    },
    count: assign({ total: ({ context, event }) => context.total + event.n }),
  },
}).createMachine({
  id: "counter",
  context: ({ input }) => ({ total: 0, limit: input.limit }),
  initial: "counting",
  states: {
    counting: {
      entry: { type: "greet", params: { who: "counter" } },
      on: { add: { guard: "fits", target: "checking", actions: "count" } },
    },
    checking: { always: [{ guard: "isFull", target: "full" }, { target: "counting" }] },
    full: { type: "final", output: ({ context }) => ({ total: context.total }) },
  },
  output: ({ event }) => event.output as { total: number },
})

type ParentEvent = ChildEvent | { type: "start" }
const parent = setup({
  types: { context: {} as { totals: number[] }, events: {} as ParentEvent },
  actors: { counter: child },
  actions: {
    forward: sendTo("counter", ({ event }) => {
      assertEvent(event, "add")
      return event
    }),
    keepTotal: assign(({ context, event }) => ({ totals: [...context.totals, (event as unknown as { output: { total: number } }).output.total] })),
  },
}).createMachine({
  id: "parent",
  context: { totals: [] },
  initial: "idle",
  states: {
    idle: { on: { start: "running" } },
    running: {
      invoke: { id: "counter", src: "counter", input: { limit: 3 }, onDone: { target: "idle", actions: "keepTotal" } },
      on: { add: { actions: "forward" } },
    },
  },
})

/** The parent started: its one state runs the counter. */
const started = () => step(parent, initialStep(parent, undefined).snapshot, { type: "start" })

const childOf = (snapshot: AnyMachineSnapshot) =>
  (snapshot.children as Record<string, { getSnapshot(): AnyMachineSnapshot } | undefined>).counter?.getSnapshot()

describe("the host's pure step through invoked machines", () => {
  it("starts an invoked machine within the step, its entry effect the step's, seen with the parent's context under its own", () => {
    const { snapshot, requested, deliveries } = started()
    expect(snapshot.value).toBe("running")
    expect(childOf(snapshot)?.value).toBe("counting")
    expect(requested.filter((a) => a.type === "greet")).toEqual([
      expect.objectContaining({ params: { who: "counter" }, info: expect.objectContaining({ context: { totals: [], total: 0, limit: 3 } }) }),
    ])
    expect(deliveries).toEqual([expect.objectContaining({ childId: "counter", kind: "start", input: { limit: 3 } })])
  })

  it("hands an event on to the child, and its end to the parent's onDone, in one step", () => {
    const once = step(parent, started().snapshot, { type: "add", n: 1 })
    expect(childOf(once.snapshot)?.context).toEqual({ total: 1, limit: 3 })
    const done = step(parent, once.snapshot, { type: "add", n: 2 })
    expect(done.snapshot.value).toBe("idle")
    expect(done.snapshot.context.totals).toEqual([3])
    expect(childOf(done.snapshot)).toBeUndefined()
  })

  it("refuses a step whose child does not take what it is handed, and changes nothing", () => {
    const running = started().snapshot
    const refused = step(parent, running, { type: "add", n: 5 })
    expect(refused).toMatchObject({ refused: true, requested: [] })
    expect(refused.snapshot).toBe(running)
    expect(running.can({ type: "add", n: 5 }), "the parent alone would take it").toBe(true)
    expect(accepts(parent, running, { type: "add", n: 5 })).toBe(false)
    expect(accepts(parent, running, { type: "add", n: 2 })).toBe(true)
  })
})

describe("a child that invokes in turn", () => {
  it("fails the step loudly: the host steps one level of invoked machines", () => {
    const leaf = setup({}).createMachine({ id: "leaf" })
    const middle = setup({ actors: { leaf } }).createMachine({ id: "middle", invoke: { id: "leaf", src: "leaf" } })
    const top = setup({ actors: { middle } }).createMachine({ id: "top", invoke: { id: "middle", src: "middle" } })
    expect(() => initialStep(top, undefined)).toThrow(/middle: the host steps one level of invoked machines, and a child's xstate.spawnChild/)
  })
})

describe("restoring a record with an invoked machine", () => {
  const definition = { machine: parent, implementations: { actions: {} }, explain: () => "", metaOf: () => ({ sessionId: null, document: null }) }
  const record = (snapshot: unknown) => ({
    machineId: "parent",
    machineVersion: "0",
    instanceId: "p1",
    sessionId: null,
    state: "running",
    terminal: false,
    snapshot,
    document: null,
    updatedAt: 0,
  })
  const persisted = () => JSON.parse(JSON.stringify(parent.getPersistedSnapshot(step(parent, started().snapshot, { type: "add", n: 1 }).snapshot)))

  it("keeps the child's state, and steps on from it", () => {
    const restored = resolveRecord(definition as LifecycleDefinition<typeof parent>, record(persisted()))
    if (!("snapshot" in restored)) throw new Error(restored.problem)
    expect(childOf(restored.snapshot as AnyMachineSnapshot)?.context).toEqual({ total: 1, limit: 3 })
    expect(step(parent, restored.snapshot as AnyMachineSnapshot, { type: "add", n: 2 }).snapshot.context.totals).toEqual([3])
  })

  it("is unfit without the child its state invokes, or with a child that does not fit its machine", () => {
    const without = { ...persisted(), children: {} }
    expect(resolveRecord(definition as LifecycleDefinition<typeof parent>, record(without))).toEqual({
      problem: "parent p1: its parent.running state invokes counter, and the record has no counter",
    })
    const stale = persisted()
    stale.children.counter.snapshot.value = "gone"
    expect(resolveRecord(definition as LifecycleDefinition<typeof parent>, record(stale))).toMatchObject({
      problem: expect.stringMatching(/^parent p1: its counter does not fit the counter machine/),
    })
  })
})
