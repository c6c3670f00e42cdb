import { describe, expect, it } from "vitest"
import { setup } from "xstate"
import { TransitionCoverage } from "../../testing/model.coverage"

// The coverage measure itself, on a machine small enough to count by hand: 2 eventless candidates (one guarded),
// 3 candidates of `go` (two guarded) and 1 of `stop` on the parent: 6 taken outcomes + 3 refused ones = 9.
const machine = setup({
  types: { context: {} as { n: number }, events: {} as { type: "go"; to: "a" | "b" | "c" } | { type: "stop" }, input: {} as { n: number } },
  guards: {
    isZero: ({ context }) => context.n === 0,
    isA: ({ event }) => event.type === "go" && event.to === "a",
    isB: ({ event }) => event.type === "go" && event.to === "b",
  },
  actions: {
    effect: () => {
      throw new Error("not provided")
    },
  },
}).createMachine({
  id: "tiny",
  context: ({ input }) => ({ n: input.n }),
  initial: "arming",
  states: {
    arming: { always: [{ guard: "isZero", target: "zero" }, { target: "live" }] },
    zero: { type: "final" },
    live: {
      initial: "idle",
      on: { stop: { target: "zero" } },
      states: {
        idle: {
          on: {
            go: [{ guard: "isA", target: "a", actions: "effect" }, { guard: "isB", target: "b" }, { target: "c" }],
          },
        },
        a: {},
        b: {},
        c: {},
      },
    },
  },
})

describe("transition coverage", () => {
  it("counts every candidate, and a refused outcome for each guarded one", () => {
    const coverage = new TransitionCoverage(machine)
    expect(coverage.report()).toMatchObject({ taken: 0, total: 9 })
    expect(coverage.all()).toContain("tiny.live.idle go #1 [isB] → tiny.live.b: refused")
  })

  it("notes what a replay took and what its guards refused, eventless transitions included", () => {
    const coverage = new TransitionCoverage(machine)
    // arming: isZero refused, the default taken; go b: isA refused, isB taken.
    coverage.record({ n: 1 }, [{ type: "go", to: "b" }])
    expect(coverage.report().taken).toBe(4)
    // isZero taken; go c: isA and isB refused, the default taken; stop taken.
    coverage.record({ n: 0 }, [])
    coverage.record({ n: 1 }, [{ type: "go", to: "c" }, { type: "stop" }])
    expect(coverage.report().missing).toEqual(["tiny.live.idle go #0 [isA] → tiny.live.a"])
    // The placeholder action runs as a no-op in the recorder's own actor.
    coverage.record({ n: 1 }, [{ type: "go", to: "a" }])
    expect(coverage.report()).toMatchObject({ taken: 9, total: 9, missing: [] })
  })

  it("counts nothing for an event no active state handles", () => {
    const coverage = new TransitionCoverage(machine)
    coverage.record({ n: 1 }, [
      { type: "go", to: "c" },
      { type: "go", to: "a" },
    ])
    expect(coverage.all().filter((o) => !coverage.report().missing.includes(o))).toEqual([
      "tiny.arming always #0 [isZero] → tiny.zero: refused",
      "tiny.arming always #1 → tiny.live",
      "tiny.live.idle go #0 [isA] → tiny.live.a: refused",
      "tiny.live.idle go #1 [isB] → tiny.live.b: refused",
      "tiny.live.idle go #2 → tiny.live.c",
    ])
  })
})
