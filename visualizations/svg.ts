import { instance } from "@viz-js/viz"
import type { AnyStateMachine } from "xstate"
import { toDot } from "./dot"

// SVG through Graphviz compiled to WebAssembly: no system package, and the same output on every machine
// that has the same @viz-js/viz version.

type Viz = Awaited<ReturnType<typeof instance>>
let vizPromise: Promise<Viz> | null = null

/** Renders DOT text to an SVG document (ending with a newline). Throws with Graphviz's messages on bad DOT. */
export async function renderDotToSvg(dot: string): Promise<string> {
  vizPromise ??= instance()
  const viz = await vizPromise
  const result = viz.render(dot, { format: "svg", engine: "dot" })
  if (result.status !== "success") {
    const messages = result.errors.map((e) => `${e.level ?? "error"}: ${e.message}`).join("; ")
    throw new Error(`Graphviz could not render the diagram: ${messages || "no message"}`)
  }
  const warnings = result.errors.filter((e) => e.level === "warning")
  if (warnings.length) {
    // A warning (an lhead Graphviz cannot honour, say) means the picture is not what the DOT says.
    throw new Error(`Graphviz warned while rendering: ${warnings.map((w) => w.message.trim()).join("; ")}`)
  }
  return result.output.endsWith("\n") ? result.output : `${result.output}\n`
}

/** The machine's diagram as SVG (DOT from `toDot`, laid out by Graphviz `dot`). */
export async function toSvg(machine: AnyStateMachine): Promise<string> {
  return renderDotToSvg(toDot(machine))
}
