import { readFileSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it, vi } from "vitest"
import { type AnyStateMachine, StateMachine } from "xstate"
import { jobMachine } from "../../../machines/job/job.machine"
import { loadExtractor } from "./extractor.load"
import { shapeOfConfig, shapeOfMachine } from "./machine.shape"
import { shapeSampleMachine } from "./shape.sample"

// Stately's editor and VS Code extension read machines from source with @xstate/machine-extractor. Whatever the
// extractor cannot read (a state given as a shared constant, a spread, a computed key) silently vanishes from those
// tools, so every machine file must read back as exactly the machine the code runs.

const MACHINES_DIR = join(import.meta.dirname, "../../../machines")
// One folder per lifecycle: machines/<name>/<name>.machine.ts.
const machineFiles = readdirSync(MACHINES_DIR, { recursive: true, encoding: "utf8" })
  .filter((name) => name.endsWith(".machine.ts"))
  .sort()

/** The one machine a machine file exports. */
async function machineOf(file: string): Promise<AnyStateMachine> {
  const exports: Record<string, unknown> = await import(join(MACHINES_DIR, file))
  const machines = Object.values(exports).filter((value): value is AnyStateMachine => value instanceof StateMachine)
  expect(machines, `${file} exports exactly one machine`).toHaveLength(1)
  return machines[0] as AnyStateMachine
}

/**
 * What Stately's tools see in a machine file's source. The extractor warns (and leaves out) only an action's `params`
 * computed from context at run time, which no editor can show as data: the action itself stays.
 */
function extractedShape(source: string, machineId: string) {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {})
  try {
    const result = loadExtractor().extractMachinesFromFile(source)
    expect(result?.machines, "the extractor finds exactly one machine").toHaveLength(1)
    const config = result?.machines[0]?.toConfig()
    if (!config) throw new Error("the extractor returned no config for the machine")
    for (const [message, detail] of warn.mock.calls) {
      expect({ message, key: (detail as { key?: unknown } | undefined)?.key }).toEqual({
        message: expect.stringMatching(/^Unsupported property value of type (ArrowFunctionExpression|FunctionExpression)/),
        key: "params",
      })
    }
    return shapeOfConfig(machineId, config)
  } finally {
    warn.mockRestore()
  }
}

describe("Stately's machine extractor", () => {
  it("finds the machine files", () => {
    expect(machineFiles).toEqual(
      expect.arrayContaining([
        "job/job.machine.ts",
        "loop/loop.machine.ts",
        "loop/loop.pass.machine.ts",
        "plan/plan.machine.ts",
        "watchdog/watchdog.machine.ts",
      ]),
    )
  })

  it.each(machineFiles)("reads %s as the machine the code runs: states, tags, transitions, guards", async (file) => {
    const machine = await machineOf(file)
    const source = readFileSync(join(MACHINES_DIR, file), "utf8")
    expect(extractedShape(source, machine.id)).toEqual(shapeOfMachine(machine))
  })

  it("is compared on delays, invokes, done events, ids, parallel and history states, child and id targets", () => {
    const source = readFileSync(join(import.meta.dirname, "shape.sample.ts"), "utf8")
    const shape = shapeOfMachine(shapeSampleMachine)
    expect(extractedShape(source, "sample")).toEqual(shape)
    expect(shape.transitions).toEqual(
      expect.arrayContaining([
        "idle on go #1 -> idle.waiting",
        "idle.waiting on xstate.after.500.sample.idle.waiting #0 -> done",
        "busy on xstate.done.state.work #0 -> done",
        "busy.loading on xstate.error.actor.0.sample.busy.loading #0 [isLate] -> busy.failed",
        "busy.ready on  #0 -> busy.finished",
        "both.left on tick #0 -> both.right",
      ]),
    )
    expect(shape.states).toEqual(expect.arrayContaining(["both (parallel)", "busy.back (history)", "done (final)"]))
  })

  it("fails loudly on builtin actions it can only build with xstate 4", () => {
    const source = `import { createMachine, assign } from "xstate"
      createMachine({ id: "m", on: { go: { actions: assign({ n: 1 }) } } })`
    expect(() => loadExtractor().extractMachinesFromFile(source)).toThrow(/action creator "assign"/)
  })
})

describe("the job machine's detached states", () => {
  // succeededByPattern and earlyReturned are written out twice so the extractor reads both: they must stay one behaviour.
  it("succeededByPattern and earlyReturned have one configuration", () => {
    expect(jobMachine.root.states.earlyReturned?.config).toEqual(jobMachine.root.states.succeededByPattern?.config)
  })
})
