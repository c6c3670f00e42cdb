import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { and, assign, fromPromise, not, or, setup, stateIn } from "xstate"
import { machineCatalog } from "../../../machines/index"
import { DIAGRAMS_DIR, diagramFiles, orphanDiagramFiles } from "../../../visualizations/diagram.files"
import { toDot } from "../../../visualizations/dot"
import { edgeLabel, guardLabel, machineGraph } from "../../../visualizations/machine.graph"
import { toMermaid } from "../../../visualizations/mermaid"
import { renderDotToSvg, toSvg } from "../../../visualizations/svg"

// A small job-like chart with every feature the exporters draw: compound and final states, tags, an invoke
// with done/error, a named delay, `always`, named guards and combinators, and targetless transitions.
function jobMachine() {
  return setup({
    types: {
      context: {} as { ticks: number },
      events: {} as { type: "start" } | { type: "tick" } | { type: "cancel" },
    },
    guards: {
      canRetry: () => true,
      budgetLeft: () => true,
      gateOpen: () => false,
    },
    actors: { runJob: fromPromise(async () => "ok") },
    delays: { heartbeat: 1_000 },
  }).createMachine({
    id: "job",
    context: { ticks: 0 },
    initial: "queued",
    states: {
      queued: {
        on: {
          start: { target: "running" },
          tick: { actions: assign({ ticks: ({ context }) => context.ticks + 1 }) },
        },
      },
      running: {
        tags: ["busy"],
        initial: "working",
        invoke: {
          id: "run",
          src: "runJob",
          onDone: { target: "succeeded" },
          onError: { guard: "canRetry", target: "running", reenter: true },
        },
        after: { heartbeat: { target: "failed" } },
        on: {
          tick: { guard: and(["budgetLeft", not("gateOpen")]) },
          cancel: { target: "#job.failed" },
        },
        states: {
          working: {
            always: { guard: not("budgetLeft"), target: "exhausted" },
            on: { cancel: { target: "#job.queued" } },
          },
          exhausted: { after: { 500: { target: "working" } } },
        },
      },
      succeeded: { type: "final" },
      failed: { type: "final", tags: ["error"] },
    },
  })
}

function regionsMachine() {
  return setup({ guards: { ready: () => true } }).createMachine({
    id: "pair",
    type: "parallel",
    states: {
      left: {
        initial: "a",
        states: { a: { on: { go: { target: "b", guard: or(["ready", stateIn("#pair.right.d")]) } } }, b: {} },
      },
      right: {
        initial: "c",
        on: { poke: {} },
        states: { c: { on: { go: "d" } }, d: { type: "history" } },
      },
    },
  })
}

describe("machineGraph", () => {
  const graph = machineGraph(jobMachine())
  const labels = graph.edges.map((e) => `${e.from.id} -> ${e.to.id} : ${edgeLabel(e)}`)

  it("lists every transition with readable events and guards", () => {
    expect(labels).toEqual([
      "job.queued -> job.running : start",
      "job.queued -> job.queued : tick",
      "job.running -> job.running : tick [and(budgetLeft, not(gateOpen))]",
      "job.running -> job.failed : cancel",
      "job.running -> job.succeeded : done(run)",
      "job.running -> job.running : error(run) [canRetry]",
      "job.running -> job.failed : after heartbeat",
      "job.running.working -> job.queued : cancel",
      "job.running.working -> job.running.exhausted : always [not(budgetLeft)]",
      "job.running.exhausted -> job.running.working : after 500ms",
    ])
  })

  it("marks only transitions without a target as targetless", () => {
    const targetless = graph.edges.filter((e) => e.targetless).map((e) => edgeLabel(e))
    expect(targetless).toEqual(["tick", "tick [and(budgetLeft, not(gateOpen))]"])
  })

  it("reads the state tree: types, tags, invokes and initial children", () => {
    const running = graph.root.children.find((c) => c.key === "running")
    expect(graph.root.initial).toBe("job.queued")
    expect(running).toMatchObject({ type: "compound", tags: ["busy"], invokes: ["run"], initial: "job.running.working" })
    expect(graph.root.children.map((c) => `${c.key}:${c.type}`)).toEqual(["queued:atomic", "running:compound", "succeeded:final", "failed:final"])
  })

  it("names guards of every shape", () => {
    expect(guardLabel(undefined)).toBeNull()
    expect(guardLabel("isReady")).toBe("isReady")
    expect(guardLabel({ type: "isAbove", params: { n: 3 } })).toBe("isAbove")
    expect(guardLabel(or(["a", not(and(["b", "c"]))]))).toBe("or(a, not(and(b, c)))")
    expect(guardLabel(stateIn("#pair.right.d"))).toBe("in(pair.right.d)")
    expect(
      guardLabel(function hasBudget() {
        return true
      }),
    ).toBe("hasBudget")
  })
})

describe("toMermaid", () => {
  const text = toMermaid(jobMachine())
  const lines = text.split("\n").map((l) => l.trim())

  it("writes a stateDiagram-v2 with composite, initial and final states", () => {
    expect(text.startsWith("stateDiagram-v2\n")).toBe(true)
    expect(text.endsWith("\n")).toBe(true)
    expect(lines).toContain('state "running (busy)" as s_job_running')
    expect(lines).toContain("state s_job_running {")
    expect(lines).toContain("[*] --> s_job_queued")
    expect(lines).toContain("[*] --> s_job_running_working")
    expect(lines).toContain("s_job_succeeded --> [*]")
    expect(lines).toContain('state "failed (error)" as s_job_failed')
  })

  it("draws guards, always, after, done and error, and targetless transitions as self-loops", () => {
    expect(lines).toContain("s_job_queued --> s_job_queued : tick")
    expect(lines).toContain("s_job_running --> s_job_running : tick [and(budgetLeft, not(gateOpen))]")
    expect(lines).toContain("s_job_running_working --> s_job_running_exhausted : always [not(budgetLeft)]")
    expect(lines).toContain("s_job_running --> s_job_failed : after heartbeat")
    expect(lines).toContain("s_job_running_exhausted --> s_job_running_working : after 500ms")
    expect(lines).toContain("s_job_running --> s_job_succeeded : done(run)")
    expect(lines).toContain("s_job_running --> s_job_running : error(run) [canRetry]")
  })

  it("draws a transition leaving a composite state from that state, naming the inner source", () => {
    expect(lines).toContain("s_job_running --> s_job_queued : cancel (from working)")
    // Written inside the composite block it belongs to, never between inner states of different composites.
    const block = text.slice(text.indexOf("state s_job_running {"), text.indexOf("}"))
    expect(block).toContain("s_job_running_working --> s_job_running_exhausted")
    expect(block).not.toContain("s_job_queued")
  })

  it("separates parallel regions with -- and draws a root with transitions as a state", () => {
    const pair = toMermaid(regionsMachine())
      .split("\n")
      .map((l) => l.trim())
    expect(pair).toContain("[*] --> s_pair")
    expect(pair).toContain("--")
    expect(pair.indexOf("--")).toBeGreaterThan(pair.indexOf('state "left" as s_pair_left'))
    expect(pair.indexOf("--")).toBeLessThan(pair.indexOf('state "right" as s_pair_right'))
    expect(pair).toContain("s_pair_left_a --> s_pair_left_b : go [or(ready, in(pair.right.d))]")
    expect(pair).toContain("s_pair_right --> s_pair_right : poke")
    expect(pair).toContain('state "d (history)" as s_pair_right_d')
  })

  it("is deterministic: the same definition gives byte-identical text", () => {
    expect(toMermaid(jobMachine())).toBe(text)
  })
})

describe("toDot", () => {
  const dot = toDot(jobMachine())

  it("draws composite states as clusters and final states with a double border", () => {
    expect(dot.startsWith('digraph "job" {\n')).toBe(true)
    expect(dot).toContain('subgraph "cluster_job.running" {')
    expect(dot).toContain('label="running\\n[busy]\\ninvoke run";')
    expect(dot).toContain('"job.succeeded" [label="succeeded", peripheries=2];')
    expect(dot).toContain('"job.running.__initial" -> "job.running.working";')
  })

  it("labels edges, clips edges at cluster borders and dashes targetless self-loops", () => {
    expect(dot).toContain('"job.queued" -> "job.running.__hub" [label="start", lhead="cluster_job.running"];')
    expect(dot).toContain('"job.running.__hub" -> "job.failed" [label="after heartbeat", ltail="cluster_job.running"];')
    expect(dot).toContain('"job.queued" -> "job.queued" [label="tick", style=dashed];')
    expect(dot).toContain('"job.running.__hub" -> "job.running.__hub" [label="tick [and(budgetLeft, not(gateOpen))]", style=dashed];')
    expect(dot).toContain('"job.running.working" -> "job.running.exhausted" [label="always [not(budgetLeft)]"];')
  })

  it("dashes the clusters of parallel regions", () => {
    const pair = toDot(regionsMachine())
    expect(pair).toContain('label="pair (parallel)"; style=rounded;')
    expect(pair).toContain('label="left"; style="rounded,dashed";')
  })

  it("is deterministic", () => {
    expect(toDot(jobMachine())).toBe(dot)
  })
})

describe("SVG", () => {
  it("renders the DOT with Graphviz, the same bytes every time", async () => {
    const svg = await toSvg(jobMachine())
    expect(svg.startsWith("<?xml")).toBe(true)
    expect(svg).toContain("<svg")
    expect(svg).toContain(">exhausted</text>")
    expect(svg).toContain(">always [not(budgetLeft)]</text>")
    expect(await toSvg(jobMachine())).toBe(svg)
    expect(await toSvg(regionsMachine())).toContain("<svg")
  })

  it("refuses DOT that Graphviz cannot read, with Graphviz's message", async () => {
    await expect(renderDotToSvg("digraph { a -> }")).rejects.toThrow(/Graphviz could not render the diagram: error: .*syntax error/)
  })
})

describe("committed diagrams in docs/machines", () => {
  it("the catalog is not empty", () => {
    expect(machineCatalog.length).toBeGreaterThan(0)
  })

  it("holds no diagram of a machine outside the catalog", async () => {
    const files = await diagramFiles(machineCatalog)
    const orphans = await orphanDiagramFiles(DIAGRAMS_DIR, files)
    expect(orphans, `docs/machines has diagrams of no machine (${orphans.join(", ")}): run npm run viz`).toEqual([])
  })

  for (const machine of machineCatalog) {
    it(`${machine.id}.mmd and ${machine.id}.svg match the machine`, async () => {
      for (const file of await diagramFiles([machine])) {
        const committed = await readFile(join(DIAGRAMS_DIR, file.name), "utf8").catch(() => null)
        expect(committed, `docs/machines/${file.name} is missing: run npm run viz`).not.toBeNull()
        expect(committed === file.content, `docs/machines/${file.name} is stale: run npm run viz`).toBe(true)
      }
    })
  }
})
