import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it, vi } from "vitest"
import { type AnyStateMachine, and, createMachine, not, setup } from "xstate"
import { machineCatalog } from "../../../machines/index"
import { jobMachine } from "../../../machines/job/job.machine"
import { loopMachine } from "../../../machines/loop/loop.machine"
import { loadExtractor } from "./extractor.load"
import { catalogFiles, machineFilesIn, machinesExportedBy } from "./machine.files"
import { unresolvedReferences } from "./machine.references"
import { shapeOfConfig, shapeOfMachine } from "./machine.shape"
import { shapeSampleMachine } from "./shape.sample"

// Stately's editor and VS Code extension read machines from source with @xstate/machine-extractor. Whatever the
// extractor cannot read (a state given as a shared constant, a spread, a computed key) silently vanishes from those
// tools, so every machine file must read back as exactly the machine the code runs: states, tags, transitions, every
// guard (its params, what an and/or/not combines) and every invoked actor.

const MACHINES_DIR = join(import.meta.dirname, "../../../machines")
// One folder per lifecycle: machines/<lifecycle>/<name>.machine.ts.
const machineFiles = machineFilesIn(MACHINES_DIR)
const exported = new Map<string, AnyStateMachine[]>(
  await Promise.all(machineFiles.map(async (file) => [file, machinesExportedBy(await import(join(MACHINES_DIR, file)))] as const)),
)

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

describe("the machine files", () => {
  it("are one per machine of machineCatalog, each in its lifecycle's folder", () => {
    const files = catalogFiles(machineCatalog, exported)
    expect([...files.values()].sort()).toEqual(machineFiles)
    expect(files.get("loopPass")).toBe("loop/loop.pass.machine.ts")
  })

  it("are found in every lifecycle folder, and only there", () => {
    const dir = mkdtempSync(join(tmpdir(), "forge-machine-files-"))
    try {
      for (const folder of ["plan", "loop"]) mkdirSync(join(dir, folder))
      for (const file of ["plan/plan.machine.ts", "plan/plan.gates.ts", "loop/loop.machine.ts", "loop/loop.pass.machine.ts", "stray.machine.ts"]) {
        writeFileSync(join(dir, file), "")
      }
      expect(machineFilesIn(dir)).toEqual(["loop/loop.machine.ts", "loop/loop.pass.machine.ts", "plan/plan.machine.ts"])
    } finally {
      rmSync(dir, { recursive: true })
    }
  })

  it("fail naming a catalog machine no file exports, and a file whose machine is not in the catalog", () => {
    expect(() => catalogFiles([...machineCatalog, shapeSampleMachine], exported)).toThrow(
      /machineCatalog's machine "sample" has no file: no machines\/<lifecycle>\/\*\.machine\.ts exports it/,
    )
    const withStray = new Map([...exported, ["sample/sample.machine.ts", [shapeSampleMachine]]])
    expect(() => catalogFiles(machineCatalog, withStray)).toThrow(/sample\/sample\.machine\.ts exports the machine "sample", which is not in machineCatalog/)
    expect(() => catalogFiles(machineCatalog, new Map([...exported, ["x/x.machine.ts", []]]))).toThrow(/x\/x\.machine\.ts exports 0 machines/)
  })
})

describe("Stately's machine extractor", () => {
  it.each(machineFiles)("reads %s as the machine the code runs: states, tags, transitions, guards, invokes", (file) => {
    const [machine] = exported.get(file) ?? []
    if (machine === undefined) throw new Error(`${file} exports no machine`)
    const source = readFileSync(join(MACHINES_DIR, file), "utf8")
    expect(extractedShape(source, machine.id)).toEqual(shapeOfMachine(machine))
  })

  it("is compared on the invoked pass of every loop phase", () => {
    const { invokes } = shapeOfMachine(loopMachine)
    for (const phase of ["coding", "auditing", "final_auditing", "post_action", "final_audit_fix"])
      expect(invokes).toContain(`running.${phase} invokes pass as pass`)
  })

  const sampleSource = readFileSync(join(import.meta.dirname, "shape.sample.ts"), "utf8")

  it("is compared on delays, invokes, done events, ids, parallel and history states, child and id targets, combined guards", () => {
    const shape = shapeOfMachine(shapeSampleMachine)
    expect(extractedShape(sampleSource, "sample")).toEqual(shape)
    expect(shape.transitions).toEqual(
      expect.arrayContaining([
        "idle on go #1 -> idle.waiting",
        "idle.waiting on xstate.after.500.sample.idle.waiting #0 -> done",
        "busy on xstate.done.state.work #0 -> done",
        "busy.loading on xstate.error.actor.0.sample.busy.loading #0 [isLate] -> busy.failed",
        "busy.ready on  #0 -> busy.finished",
        "both.left on tick #0 -> both.right",
        'idle on check #0 [and(isReady, not(isLate), or(isLate, isAbove {"n":2}))] -> both',
        'idle on check #1 [isAbove {"n":1}] -> idle.paused',
      ]),
    )
    expect(shape.states).toEqual(expect.arrayContaining(["both (parallel)", "busy.back (history)", "done (final)"]))
    expect(shape.invokes).toEqual([
      "busy.loading invokes (inline) as 2.sample.busy.loading",
      "busy.loading invokes fetchThing as 0.sample.busy.loading",
      "busy.loading invokes watchThing as watcher",
    ])
  })

  // The sample's source changed in one place, as a machine file could drift from the machine the code runs.
  it.each([
    ["a guard's name", '"isReady", target: "busy.loading"', '"isLate", target: "busy.loading"', "guards"],
    ["a guard inside not()", 'not("isLate")', 'not("isReady")', "guards"],
    ["and() turned into or()", 'and(["isReady"', 'or(["isReady"', "guards"],
    ["a guard's params", "params: { n: 2 }", "params: { n: 3 }", "guards"],
    ["an invoke's source", 'id: "watcher", src: "watchThing"', 'id: "watcher", src: "fetchThing"', "invokes"],
    ["an invoke's id", 'id: "watcher"', 'id: "observer"', "invokes"],
  ] as const)("tells apart a machine file whose %s differs from the running machine", (_, from, to, field) => {
    expect(sampleSource).toContain(from)
    const drifted = extractedShape(sampleSource.replace(from, to), "sample")
    const running = shapeOfMachine(shapeSampleMachine)
    expect(drifted[field]).not.toEqual(running[field])
    expect(drifted).not.toEqual(running)
  })

  it("fails loudly on builtin actions it can only build with xstate 4", () => {
    const source = `import { createMachine, assign } from "xstate"
      createMachine({ id: "m", on: { go: { actions: assign({ n: 1 }) } } })`
    expect(() => loadExtractor().extractMachinesFromFile(source)).toThrow(/action creator "assign"/)
  })
})

describe("what the running machines name", () => {
  it.each(machineCatalog.map((machine) => [machine.id, machine] as const))("%s implements every guard and actor it names", (_, machine) => {
    expect(unresolvedReferences(machine, machineCatalog)).toEqual([])
  })

  it("is checked: a guard or an actor no implementation answers, and an invoked machine outside the catalog, are named", () => {
    const stray = createMachine({ id: "stray" })
    // setup()'s types refuse unknown names at compile time where the config spells them: cast, as a looser config would be.
    const machine = setup({ guards: { isReady: () => true, canGo: and(["isReady", not("isGone" as "isReady")]) }, actors: { stray } }).createMachine({
      id: "broken",
      on: { go: { guard: "canGo" }, stop: { guard: "isMissing" as "isReady" } },
      invoke: [{ src: "stray" }, { src: "ghost" as "stray" }],
    })
    expect(unresolvedReferences(machine, machineCatalog)).toEqual([
      'broken: the guard "canGo" names the guard "isGone", which setup() does not implement',
      'broken: broken on stop #0 names the guard "isMissing", which setup() does not implement',
      'broken: broken invokes the machine "stray", which is not in machineCatalog (machines/index.ts)',
      'broken: broken invokes "ghost", which setup() does not provide',
    ])
  })
})

describe("the job machine's detached states", () => {
  // succeededByPattern and earlyReturned are written out twice so the extractor reads both: they must stay one behaviour.
  it("succeededByPattern and earlyReturned have one configuration", () => {
    expect(jobMachine.root.states.earlyReturned?.config).toEqual(jobMachine.root.states.succeededByPattern?.config)
  })
})
