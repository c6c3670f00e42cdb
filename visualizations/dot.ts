import type { AnyStateMachine } from "xstate"
import { type DiagramNode, edgeEffectsLabel, machineGraph, stateEffectLines, triggerLabel } from "./machine.graph"

// Graphviz DOT. Composite states are clusters; an edge to or from a composite state is drawn to its cluster
// border (compound=true with lhead/ltail) through an invisible hub point inside the cluster.

/** The machine as a Graphviz DOT digraph, ending with a newline. Same machine, same text. */
export function toDot(machine: AnyStateMachine): string {
  const graph = machineGraph(machine)
  // The node margin leaves room for a viewer whose fallback font is wider than the Helvetica Graphviz measured.
  const lines = [
    `digraph ${q(graph.id)} {`,
    `  compound=true; rankdir=LR; fontname="Helvetica"; fontsize=12;`,
    `  node [shape=box, style=rounded, fontname="Helvetica", fontsize=11, margin="0.2,0.06"];`,
    `  edge [fontname="Helvetica", fontsize=9];`,
  ]
  const emit = (n: DiagramNode, ind: string): void => {
    if (!n.children.length) {
      lines.push(`${ind}${q(n.id)} [${leafAttrs(n).join(", ")}];`)
      return
    }
    lines.push(
      `${ind}subgraph ${q(`cluster_${n.id}`)} {`,
      `${ind}  label=${q(clusterLabel(n))}; style=${n.parent?.type === "parallel" ? '"rounded,dashed"' : "rounded"};`,
      `${ind}  ${q(hub(n))} [shape=point, style=invis, width=0.01, label=""];`,
    )
    const first = n.children.find((k) => k.id === n.initial)
    if (first) {
      const init = `${n.id}.__initial`
      const head = first.children.length ? ` [lhead=${q(`cluster_${first.id}`)}]` : ""
      lines.push(
        `${ind}  ${q(init)} [shape=circle, width=0.15, height=0.15, fixedsize=true, label="", style=filled, fillcolor=black];`,
        `${ind}  ${q(init)} -> ${q(hubOf(first))}${head};`,
      )
    }
    for (const k of n.children) emit(k, `${ind}  `)
    lines.push(`${ind}}`)
  }
  emit(graph.root, "  ")
  for (const e of graph.edges) {
    // Effects on a line of their own keep the edge labels narrow.
    const effects = edgeEffectsLabel(e)
    const attrs = [`label=${q(effects ? `${triggerLabel(e)}\n${effects}` : triggerLabel(e))}`]
    const selfLoop = e.from === e.to
    // Graphviz cannot clip a loop to one cluster at both ends; a loop stays on the hub.
    if (!selfLoop && e.from.children.length && !isAncestor(e.from, e.to)) attrs.push(`ltail=${q(`cluster_${e.from.id}`)}`)
    if (!selfLoop && e.to.children.length && !isAncestor(e.to, e.from)) attrs.push(`lhead=${q(`cluster_${e.to.id}`)}`)
    if (e.targetless) attrs.push("style=dashed")
    lines.push(`  ${q(hubOf(e.from))} -> ${q(hubOf(e.to))} [${attrs.join(", ")}];`)
  }
  lines.push("}")
  return `${lines.join("\n")}\n`
}

function hub(n: DiagramNode): string {
  return `${n.id}.__hub`
}

function hubOf(n: DiagramNode): string {
  return n.children.length ? hub(n) : n.id
}

function isAncestor(outer: DiagramNode, inner: DiagramNode): boolean {
  for (let p = inner.parent; p; p = p.parent) if (p === outer) return true
  return false
}

function leafAttrs(n: DiagramNode): string[] {
  const attrs = [`label=${q(stateLines(n).join("\n"))}`]
  if (n.type === "final") attrs.push("peripheries=2")
  if (n.type === "history") attrs.push("shape=circle")
  return attrs
}

function clusterLabel(n: DiagramNode): string {
  return stateLines(n).join("\n")
}

function stateLines(n: DiagramNode): string[] {
  const head = n.type === "history" ? `H${n.history === "deep" ? "*" : ""} ${n.key}` : n.type === "parallel" ? `${n.key} (parallel)` : n.key
  const out = [head]
  if (n.tags.length) out.push(`[${n.tags.join(", ")}]`)
  for (const src of n.invokes) out.push(`invoke ${src}`)
  out.push(...stateEffectLines(n))
  return out
}

/**
 * A DOT quoted string: backslashes and quotes escaped, newlines as centred line breaks, and "…" spelled "...":
 * Graphviz has no width for non-ASCII characters (it warns, and the renderer refuses warnings).
 */
function q(s: string): string {
  return `"${s.replace(/…/g, "...").replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\r?\n/g, "\\n")}"`
}
