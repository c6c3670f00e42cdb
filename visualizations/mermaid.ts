import type { AnyStateMachine } from "xstate"
import { type DiagramEdge, type DiagramNode, allNodes, edgeEffectsLabel, machineGraph, stateEffectLines, triggerLabel } from "./machine.graph"

// Mermaid `stateDiagram-v2` text. Mermaid cannot draw a transition between internal states of different
// composite states, so such a transition is drawn between the states that hold its ends, at the level where
// they are siblings, and its label names the inner states it really connects.

/** The machine as Mermaid `stateDiagram-v2` text, ending with a newline. Same machine, same text. */
export function toMermaid(machine: AnyStateMachine): string {
  const graph = machineGraph(machine)
  const ids = mermaidIds(graph.root)
  const mid = (n: DiagramNode): string => ids.get(n) ?? n.id
  // The root becomes a drawn state only when it has transitions of its own (events handled in every state).
  // A parallel root is drawn as a state too, so its regions can be separated.
  const wrapRoot = graph.root.type === "parallel" || graph.edges.some((e) => e.from === graph.root || e.to === graph.root)
  const top: DiagramNode | null = wrapRoot ? null : graph.root
  const placed = new Map<DiagramNode | null, PlacedEdge[]>()
  for (const edge of graph.edges) {
    const p = placeEdge(edge, top)
    placed.set(p.container, [...(placed.get(p.container) ?? []), p])
  }

  const lines = ["stateDiagram-v2"]
  const edgeLine = (p: PlacedEdge, ind: string): string => {
    const inner: string[] = []
    if (p.from !== p.edge.from) inner.push(`from ${relativePath(p.edge.from, p.from)}`)
    if (p.to !== p.edge.to) inner.push(`to ${relativePath(p.edge.to, p.to)}`)
    // The inner states belong to the trigger: `dialog.allow (from confirming) / writeDocument(approved)`.
    const effects = edgeEffectsLabel(p.edge)
    const label = triggerLabel(p.edge) + (inner.length ? ` (${inner.join(", ")})` : "") + (effects ? ` ${effects}` : "")
    return `${ind}${mid(p.from)} --> ${mid(p.to)} : ${text(label)}`
  }
  const declare = (n: DiagramNode, ind: string): void => {
    // A leaf's effects are extra description lines under its name (Mermaid draws a box with a title). A
    // composite's title is a single label (Mermaid joins a list there), so its effects follow the name on it.
    const effects = stateEffectLines(n)
    const title = n.children.length ? [stateLabel(n), ...effects].join(" · ") : stateLabel(n)
    lines.push(`${ind}state "${text(title)}" as ${mid(n)}`)
    if (!n.children.length) for (const line of effects) lines.push(`${ind}${mid(n)} : ${text(line)}`)
    if (n.children.length) {
      lines.push(`${ind}state ${mid(n)} {`)
      body(n, `${ind}  `)
      lines.push(`${ind}}`)
    }
    if (n.type === "final") lines.push(`${ind}${mid(n)} --> [*]`)
  }
  // The inside of a composite state (or of the diagram itself when `n` is null).
  const body = (n: DiagramNode | null, ind: string): void => {
    const kids = n ? n.children : [graph.root]
    const edges = placed.get(n) ?? []
    if (n?.type === "parallel") {
      // Regions are separated by `--`; a region's own self-loops stay in its section.
      kids.forEach((k, i) => {
        if (i) lines.push(`${ind}--`)
        declare(k, ind)
        for (const p of edges) if (p.from === k) lines.push(edgeLine(p, ind))
      })
      return
    }
    for (const k of kids) declare(k, ind)
    if (n?.initial) {
      const first = kids.find((k) => k.id === n.initial)
      if (first) lines.push(`${ind}[*] --> ${mid(first)}`)
    }
    for (const p of edges) lines.push(edgeLine(p, ind))
  }
  if (top) body(top, "  ")
  else {
    lines.push(`  [*] --> ${mid(graph.root)}`)
    body(null, "  ")
  }
  return `${lines.join("\n")}\n`
}

interface PlacedEdge {
  edge: DiagramEdge
  /** The composite state whose block holds the edge; null for the top level of the diagram. */
  container: DiagramNode | null
  from: DiagramNode
  to: DiagramNode
}

/** Finds the block an edge is written in, and the siblings in that block that stand for its two ends. */
function placeEdge(edge: DiagramEdge, top: DiagramNode | null): PlacedEdge {
  const chain = (n: DiagramNode): Array<DiagramNode | null> => {
    const out: Array<DiagramNode | null> = []
    for (let p = n.parent; p && p !== top; p = p.parent) out.push(p)
    out.push(top)
    return out
  }
  const toChain = new Set(chain(edge.to))
  let container = chain(edge.from).find((c) => toChain.has(c)) ?? top
  const liftTo = (n: DiagramNode, c: DiagramNode | null): DiagramNode => {
    let cur = n
    while (cur.parent !== c && cur.parent) cur = cur.parent
    return cur
  }
  let from = liftTo(edge.from, container)
  let to = liftTo(edge.to, container)
  // Between two regions of a parallel state: drawn on the parallel state itself.
  if (container && container.type === "parallel" && from !== to) {
    container = container.parent ?? top
    from = liftTo(edge.from, container)
    to = from
  }
  return { edge, container, from, to }
}

function relativePath(inner: DiagramNode, outer: DiagramNode): string {
  const keys: string[] = []
  for (let n: DiagramNode | null = inner; n && n !== outer; n = n.parent) keys.unshift(n.key)
  return keys.join(".")
}

function stateLabel(n: DiagramNode): string {
  const base = n.type === "history" ? `${n.key} (history${n.history === "deep" ? "*" : ""})` : n.key
  return n.tags.length ? `${base} (${n.tags.join(", ")})` : base
}

/** Mermaid ids: the state id made safe (letters, digits, `_`), suffixed in document order when two collide. */
function mermaidIds(root: DiagramNode): Map<DiagramNode, string> {
  const ids = new Map<DiagramNode, string>()
  const used = new Set<string>()
  for (const n of allNodes(root)) {
    const base = `s_${n.id.replace(/[^A-Za-z0-9_]/g, "_")}`
    let id = base
    for (let i = 2; used.has(id); i++) id = `${base}_${i}`
    used.add(id)
    ids.set(n, id)
  }
  return ids
}

// Characters that end a statement, open a block or an entity, close a quoted label, or end a description
// (Mermaid reads a description up to the next ":") in Mermaid.
function text(s: string): string {
  return s
    .replace(/[\r\n]+/g, " ")
    .replace(/:/g, "∶")
    .replace(/"/g, "'")
    .replace(/;/g, ",")
    .replace(/#/g, "")
    .replace(/\{/g, "(")
    .replace(/\}/g, ")")
}
