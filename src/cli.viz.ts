import type { AnyStateMachine } from "xstate"
import { machineCatalog } from "../machines/index"
import { machineJson } from "../visualizations/machine.export"
import { toMermaid } from "../visualizations/mermaid"

// `forgecharts viz [machine] [--format mermaid|svg|json]`: the machines' diagrams from the machines the package runs,
// or one machine's config as JSON for Stately's editor (and for another harness's createMachine).

const VIZ_FORMATS = ["mermaid", "svg", "json"] as const

/** What `viz` prints, or the usage error that says what to give instead (exit 2). */
export type VizOutcome = { text: string } | { error: string }

export async function vizText(machineId: string | undefined, format: string | undefined): Promise<VizOutcome> {
  const ids = machineCatalog.map((m) => m.id)
  const chosen = format ?? "mermaid"
  if (!(VIZ_FORMATS as readonly string[]).includes(chosen)) return { error: `unknown --format "${chosen}": give one of ${VIZ_FORMATS.join(", ")}` }
  const machines: readonly AnyStateMachine[] = machineId === undefined ? machineCatalog : machineCatalog.filter((m) => m.id === machineId)
  if (machines.length === 0) return { error: `no machine "${machineId}": the machines are ${ids.join(", ")}` }
  if (chosen === "mermaid") return { text: machines.map((m) => `%% ${m.id}\n${toMermaid(m)}`).join("\n") }
  const one = machines.length === 1 ? machines[0] : undefined
  if (one === undefined) return { error: `--format ${chosen} draws one machine: name it (${ids.join(", ")})` }
  if (chosen === "json") return { text: `${JSON.stringify(machineJson(one), null, 2)}\n` }
  // Graphviz in WebAssembly loads only when an SVG is asked for.
  const { toSvg } = await import("../visualizations/svg")
  return { text: await toSvg(one) }
}
