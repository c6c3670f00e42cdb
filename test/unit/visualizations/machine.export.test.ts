import { describe, expect, it, vi } from "vitest"
import { createMachine } from "xstate"
import { goalMachine, loopMachine, machineCatalog } from "../../../machines/index"
import { machineJson } from "../../../visualizations/machine.export"
import { loadExtractor } from "../machines/extractor.load"
import { shapeOfConfig, shapeOfMachine } from "../machines/machine.shape"

// `forgecharts viz <machine> --format json`: a machine's config as JSON, which createMachine builds back into the same
// machine and Stately's extractor reads as the same machine: every state, tag, guard and transition, in order.

describe("a machine's config as JSON", () => {
  for (const machine of machineCatalog) {
    it(`${machine.id}: createMachine builds the same machine from it`, () => {
      const json = JSON.parse(JSON.stringify(machineJson(machine)))
      expect(shapeOfMachine(createMachine(json))).toEqual(shapeOfMachine(machine))
    })

    it(`${machine.id}: Stately's extractor reads the same machine from it`, () => {
      const source = `import { createMachine } from "xstate"\n\nexport const machine = createMachine(${JSON.stringify(machineJson(machine), null, 2)})\n`
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {})
      try {
        const result = loadExtractor().extractMachinesFromFile(source)
        const config = result?.machines[0]?.toConfig()
        if (!config) throw new Error("the extractor returned no config")
        expect(shapeOfConfig(machine.id, config)).toEqual(shapeOfMachine(machine))
        expect(warn, "the extractor reads every property").not.toHaveBeenCalled()
      } finally {
        warn.mockRestore()
      }
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
  })
})
