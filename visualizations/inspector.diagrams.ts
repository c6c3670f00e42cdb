import { machineCatalog } from "../machines/index"
import { toSvg } from "./svg"

// The inspector's diagrams: each machine's SVG (the same as `forgecharts viz <machine> --format svg`, guards named on
// the edges, states titled by their ids so the page can highlight them), drawn once on first request.

const drawn = new Map<string, Promise<string>>()

/** The machine's diagram, or undefined when no machine has that id. */
export function machineDiagram(machineId: string): Promise<string | undefined> {
  const machine = machineCatalog.find((m) => m.id === machineId)
  if (machine === undefined) return Promise.resolve(undefined)
  let svg = drawn.get(machineId)
  if (svg === undefined) {
    svg = toSvg(machine)
    drawn.set(machineId, svg)
  }
  return svg
}
