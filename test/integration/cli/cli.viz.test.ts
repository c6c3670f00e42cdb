import { spawnSync } from "node:child_process"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { goalMachine, machineCatalog } from "../../../machines/index"
import { machineJson } from "../../../visualizations/machine.export"

// `forgecharts viz`, run as a user runs it: the diagrams from the machines the package runs, one machine's SVG, one
// machine's config as JSON, and usage errors that say what to give instead.

const ROOT = path.resolve(import.meta.dirname, "../../..")
const viz = (...args: string[]) =>
  spawnSync(path.join(ROOT, "node_modules/.bin/tsx"), [path.join(ROOT, "src/cli.ts"), "viz", ...args], { encoding: "utf8", timeout: 60_000 })

describe("forgecharts viz", () => {
  it("prints every machine's Mermaid diagram by default, each under its id", () => {
    const result = viz()
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout.match(/^%% \w+$/gm)).toEqual(machineCatalog.map((m) => `%% ${m.id}`))
    expect(result.stdout).toContain("stateDiagram-v2")
  })

  it("prints one machine's config as JSON, and one machine's SVG", () => {
    const json = viz("goal", "--format", "json")
    expect(json.status, json.stderr).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(JSON.stringify(machineJson(goalMachine))))
    const svg = viz("plan", "--format", "svg")
    expect(svg.status, svg.stderr).toBe(0)
    expect(svg.stdout).toMatch(/^<\?xml [\s\S]*<svg [\s\S]*<\/svg>\n$/)
  })

  it("answers a machine it does not have, a format it does not know and an SVG of every machine with exit 2 and what to give", () => {
    const unknown = viz("lamp")
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toMatch(
      new RegExp(`^forgecharts viz: no machine "lamp": the machines are ${machineCatalog.map((m) => m.id).join(", ")}\n\nusage: forgecharts viz `),
    )
    const format = viz("plan", "--format", "png")
    expect(format.status).toBe(2)
    expect(format.stderr).toMatch(/^forgecharts viz: unknown --format "png": give one of mermaid, svg, json\n/)
    const all = viz("--format", "svg")
    expect(all.status).toBe(2)
    expect(all.stderr).toMatch(/^forgecharts viz: --format svg draws one machine: name it \(plan, /)
  })
})
