import { describe, expect, it, vi } from "vitest"
import { type AnyStateMachine, createMachine } from "xstate"
import { goalMachine, loopMachine, machineCatalog } from "../../../machines/index"
import { type MachineConfigJson, machineJson } from "../../../visualizations/machine.export"
import { loadExtractor } from "../machines/extractor.load"
import { shapeOfConfig, shapeOfMachine } from "../machines/machine.shape"
import { shapeSampleMachine } from "../machines/shape.sample"

// `forgecharts viz <machine> --format json`: a machine's config as JSON, which createMachine builds back into the same
// machine and Stately's extractor reads as the same machine: every state, tag, transition, guard (with its params) and
// invoked actor, in order.

/** The JSON as a file holds it: what survives a JSON.stringify. */
const jsonOf = (machine: AnyStateMachine): MachineConfigJson => JSON.parse(JSON.stringify(machineJson(machine)))

/** The shape the extractor reads from `createMachine(<json>)` written as source text. */
function extractedShapeOf(json: MachineConfigJson, machineId: string) {
  const source = `import { createMachine } from "xstate"\n\nexport const machine = createMachine(${JSON.stringify(json, null, 2)})\n`
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {})
  try {
    const result = loadExtractor().extractMachinesFromFile(source)
    const config = result?.machines[0]?.toConfig()
    if (!config) throw new Error("the extractor returned no config")
    expect(warn, "the extractor reads every property").not.toHaveBeenCalled()
    return shapeOfConfig(machineId, config)
  } finally {
    warn.mockRestore()
  }
}

describe("a machine's config as JSON", () => {
  for (const machine of machineCatalog) {
    it(`${machine.id}: createMachine builds the same machine from it`, () => {
      expect(shapeOfMachine(createMachine(jsonOf(machine)))).toEqual(shapeOfMachine(machine))
    })

    it(`${machine.id}: Stately's extractor reads the same machine from it`, () => {
      expect(extractedShapeOf(jsonOf(machine), machine.id)).toEqual(shapeOfMachine(machine))
    })
  }

  it("names the effects and actors for a harness to provide, and keeps the machine's id and version", () => {
    const goal = machineJson(goalMachine)
    expect(goal).toMatchObject({ id: "goal", version: expect.any(String), initial: "writing" })
    const text = JSON.stringify(goal)
    expect(text).toContain('"guard":"canAudit"')
    expect(text).toContain('{"type":"writeDocument","params":{"change":"audited"}}')
    const loop = JSON.stringify(machineJson(loopMachine))
    expect(loop).toMatch(/"invoke":\[\{"id":"pass","src":"pass"/)
    expect(loop).toContain('"guard":{"type":"isResumingIn","params":{"phase":"coding"}}')
  })

  // The loop's JSON changed in one place: both readings must tell it from the machine the code runs.
  it.each([
    ["an invoke's source", '"src":"pass"', '"src":"passed"', "invokes"],
    ["an invoke's id", '"id":"pass"', '"id":"lap"', "invokes"],
    ["a guard's name", '"guard":"canStart"', '"guard":"canStartNow"', "guards"],
    ["a guard's params", '"params":{"phase":"coding"}}', '"params":{"phase":"auditing"}}', "guards"],
  ] as const)("is compared on %s", (_, from, to, field) => {
    const text = JSON.stringify(jsonOf(loopMachine))
    expect(text).toContain(from)
    const drifted = JSON.parse(text.replace(from, to)) as MachineConfigJson
    const running = shapeOfMachine(loopMachine)
    expect(shapeOfMachine(createMachine(drifted))[field]).not.toEqual(running[field])
    expect(extractedShapeOf(drifted, loopMachine.id)[field]).not.toEqual(running[field])
  })

  it("refuses a guard it cannot write as JSON, naming where it is, rather than leave the transition unguarded", () => {
    expect(() => machineJson(shapeSampleMachine)).toThrow(
      "sample.idle on check #0 has an inline and() guard, which has no JSON form: name it in the machine's setup() guards and refer to it by that name",
    )
  })
})
