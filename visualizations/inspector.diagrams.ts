import { machineCatalog } from "../machines/index"

// The inspector's diagrams: each machine's SVG (the same as `forgecharts viz <machine> --format svg`, guards named on
// the edges, states titled by their ids so the page can highlight them), drawn once on first request.

const drawn = new Map<string, Promise<string>>()

/** The machine's diagram, or undefined when no machine has that id. */
export function machineDiagram(machineId: string): Promise<string | undefined> {
  const machine = machineCatalog.find((m) => m.id === machineId)
  if (machine === undefined) return Promise.resolve(undefined)
  let svg = drawn.get(machineId)
  if (svg === undefined) {
    // Graphviz in WebAssembly loads with the first diagram asked for, not with the inspector's start.
    svg = import("./svg").then(({ toSvg }) => toSvg(machine))
    drawn.set(machineId, svg)
  }
  return svg
}
