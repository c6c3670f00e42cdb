import { describe, expect, it } from "vitest"
import { assign, createMachine, emit, raise, setup } from "xstate"
import { planMachine, watchdogMachine } from "../../../machines/index"
import { toDot } from "../../../visualizations/dot"
import { edgeLabel, machineGraph } from "../../../visualizations/machine.graph"
import { toMermaid } from "../../../visualizations/mermaid"
import { toSvg } from "../../../visualizations/svg"

// Effects are the machine's placeholder actions (plain functions in setup) that each harness provides: the
// diagrams draw them on transitions and as entry/exit of states. Built-ins (assign, emit, raise) stay hidden.
function effectsMachine() {
  return setup({
    types: { context: {} as { n: number; pids: number[] }, events: {} as { type: "go" } | { type: "poke" } | { type: "back" } },
    guards: { isReady: () => true },
    actions: {
      count: assign({ n: ({ context }) => context.n + 1 }),
      announce: emit({ type: "announced" }),
      again: raise({ type: "poke" }),
      notify: (_, _params: { kind: string }) => {
        throw new Error("notify not provided")
      },
      kill: (_, _params: { pids: number[] }) => {
        throw new Error("kill not provided")
      },
      save: () => {
        throw new Error("save not provided")
      },
    },
  }).createMachine({
    id: "fx",
    context: { n: 0, pids: [] },
    initial: "idle",
    states: {
      idle: {
        on: {
          go: {
            guard: "isReady",
            target: "busy",
            actions: ["count", { type: "notify", params: { kind: "warn" } }, "announce", { type: "kill", params: ({ context }) => ({ pids: context.pids }) }],
          },
          poke: { actions: ["count", "again"] },
        },
      },
      busy: {
        entry: [{ type: "notify", params: { kind: "entered" } }, "count"],
        exit: ["save", assign({ n: 0 })],
        on: { back: { target: "idle", actions: "count" }, poke: { actions: "save" } },
      },
    },
  })
}

describe("effects in the machine graph", () => {
  const graph = machineGraph(effectsMachine())
  const labels = graph.edges.map((e) => `${e.from.id} -> ${e.to.id} : ${edgeLabel(e)}`)
  const busy = graph.root.children.find((c) => c.key === "busy")

  it("labels a transition with its effects after a slash, static params as values and computed ones as (…)", () => {
    expect(labels).toContain("fx.idle -> fx.busy : go [isReady] / notify(warn), kill(…)")
    expect(labels).toContain("fx.busy -> fx.busy : poke / save")
  })

  it("hides assign, emit and raise: a transition with only built-ins reads as before", () => {
    expect(labels).toContain("fx.idle -> fx.idle : poke")
    expect(labels).toContain("fx.busy -> fx.idle : back")
  })

  it("lists entry and exit effects of a state, without its assigns", () => {
    expect(busy?.entry.map((e) => e.label)).toEqual(["notify(entered)"])
    expect(busy?.exit.map((e) => e.label)).toEqual(["save"])
    expect(graph.root.children.find((c) => c.key === "idle")?.entry).toEqual([])
  })
})

describe("effects without setup", () => {
  it("draws an inline function by its name and a named action nobody implemented yet, never an inline assign", () => {
    const machine = createMachine({
      id: "bare",
      initial: "a",
      states: {
        a: {
          entry: [function beep() {}, assign({})],
          on: { go: { target: "b", actions: [{ type: "provided.later", params: { n: 2, tags: ["x", "y"] } }] } },
        },
        b: {},
      },
    })
    const graph = machineGraph(machine)
    expect(graph.root.children[0]?.entry.map((e) => e.label)).toEqual(["beep"])
    expect(graph.edges.map(edgeLabel)).toEqual(["go / provided.later(2, [x, y])"])
  })

  it("keeps a param value with a colon from ending the Mermaid label early", () => {
    const machine = createMachine({ id: "url", initial: "a", states: { a: { on: { go: { actions: { type: "fetch", params: { url: "http://x" } } } } } } })
    expect(toMermaid(machine)).toContain("s_url_a --> s_url_a : go / fetch(http∶//x)\n")
  })
})

describe("effects in Mermaid, DOT and SVG", () => {
  it("Mermaid: on edges, and as entry/exit lines of a state", () => {
    const lines = toMermaid(effectsMachine())
      .split("\n")
      .map((l) => l.trim())
    expect(lines).toContain("s_fx_idle --> s_fx_busy : go [isReady] / notify(warn), kill(…)")
    expect(lines).toContain("s_fx_busy : entry / notify(entered)")
    expect(lines).toContain("s_fx_busy : exit / save")
    expect(lines.join("\n")).not.toMatch(/count|announce|again/)
  })

  it("DOT: effects on a second line of the edge label, entry/exit lines in the state label, … as ... for Graphviz", () => {
    const dot = toDot(effectsMachine())
    expect(dot).toContain('"fx.idle" -> "fx.busy" [label="go [isReady]\\n/ notify(warn), kill(...)"];')
    expect(dot).toContain('"fx.busy" [label="busy\\nentry / notify(entered)\\nexit / save"];')
    expect(dot).not.toMatch(/count|announce|again/)
  })

  it("SVG: the effects are drawn", async () => {
    const svg = await toSvg(effectsMachine())
    expect(svg).toContain(">/ notify(warn), kill(...)</text>")
    expect(svg).toContain(">entry / notify(entered)</text>")
  })
})

describe("effects of the real machines", () => {
  it("plan: writeDocument on transitions and on draft's entry; a composite's entry in Mermaid is on its label", () => {
    const lines = toMermaid(planMachine)
      .split("\n")
      .map((l) => l.trim())
    expect(lines).toContain("s_plan_approved_working --> s_plan_approved_working : plan.tick [isTaskOpen] / writeDocument(ticked)")
    expect(lines).toContain('state "draft (live, write-ban) · entry / writeDocument(created)" as s_plan_draft')
    expect(lines).toContain("s_plan_draft_editing --> s_plan_draft_discarding : plan.discard [isByModel]")
  })

  it("watchdog: locating enters with requestLocate(…), killing with requestKill(…) and ledger(kill)", () => {
    const lines = toMermaid(watchdogMachine)
      .split("\n")
      .map((l) => l.trim())
    expect(lines).toContain("s_watchdog_watching_locating : entry / requestLocate(…)")
    expect(lines).toContain("s_watchdog_watching_killing : entry / requestKill(…), ledger(kill)")
    expect(lines).toContain("s_watchdog_watching_timing --> s_watchdog_watching_warned : watchdog.tick [isWarnDue] / ledger(warn)")
    expect(toDot(watchdogMachine)).toContain('label="locating\\n[locating]\\nentry / requestLocate(...)"')
  })
})
