import type { AnyStateMachine, AnyStateNode } from "xstate"
import { type DiagramEffect, effectsLabel, effectsOf } from "./machine.effects"

// A plain-data view of a machine's structure, read from `machine.root`. Both diagram exporters draw from it,
// so Mermaid and DOT always agree on which states and transitions exist and how they are labelled.

export type DiagramNodeType = "atomic" | "compound" | "parallel" | "final" | "history"

export interface DiagramNode {
  /** The xstate state node id (unique within the machine), e.g. "plan.draft.editing". */
  id: string
  /** The key under its parent, e.g. "editing"; the machine id for the root. */
  key: string
  type: DiagramNodeType
  /** For history nodes: which history they recall. */
  history: "shallow" | "deep" | null
  tags: readonly string[]
  /** The actors this state invokes, by source name. */
  invokes: readonly string[]
  /** The effects this state runs when entered and when left (assigns and other built-ins are not effects). */
  entry: readonly DiagramEffect[]
  exit: readonly DiagramEffect[]
  /** The id of the initial child, for compound states. */
  initial: string | null
  children: readonly DiagramNode[]
  parent: DiagramNode | null
}

export interface DiagramEdge {
  from: DiagramNode
  to: DiagramNode
  /** Readable event: `plan.approve`, `always`, `after 5000ms`, `done(run)`, `error(run)`, `onDone`. */
  event: string
  /** Readable guard: `isReady`, `and(a, not(b))`, or null when unguarded. */
  guard: string | null
  /** The effects the transition runs, in order (assigns and other built-ins are not effects). */
  effects: readonly DiagramEffect[]
  /** A transition without a target: it runs its actions and stays, drawn as a self-loop. */
  targetless: boolean
}

export interface MachineGraph {
  id: string
  root: DiagramNode
  /** Every transition, in document order (states depth-first, each state's events in config order). */
  edges: readonly DiagramEdge[]
}

/** Reads the state tree and every transition (including `always`, `after`, done and error events) of a machine. */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const byId = new Map<string, DiagramNode>()
  const root = toNode(machine, machine.root, null, byId)
  const edges: DiagramEdge[] = []
  collectEdges(machine, machine.root, byId, edges)
  return { id: machine.id, root, edges }
}

/** The text an edge carries: `event [guard] / effect(params), effect`. */
export function edgeLabel(edge: DiagramEdge): string {
  const effects = edgeEffectsLabel(edge)
  return effects ? `${triggerLabel(edge)} ${effects}` : triggerLabel(edge)
}

/** What fires an edge: `event [guard]`. */
export function triggerLabel(edge: DiagramEdge): string {
  return edge.guard ? `${edge.event} [${edge.guard}]` : edge.event
}

/** What an edge runs: `/ effect(params), effect`, or "" when it runs no effect. */
export function edgeEffectsLabel(edge: DiagramEdge): string {
  return edge.effects.length ? `/ ${effectsLabel(edge.effects)}` : ""
}

/** A state's effect lines: `entry / requestLocate(…)`, `exit / save`, only those it has. */
export function stateEffectLines(node: DiagramNode): string[] {
  const out: string[] = []
  if (node.entry.length) out.push(`entry / ${effectsLabel(node.entry)}`)
  if (node.exit.length) out.push(`exit / ${effectsLabel(node.exit)}`)
  return out
}

/** Every node of the tree in document order (pre-order). */
export function allNodes(root: DiagramNode): DiagramNode[] {
  const out: DiagramNode[] = [root]
  for (const child of root.children) out.push(...allNodes(child))
  return out
}

function toNode(machine: AnyStateMachine, node: AnyStateNode, parent: DiagramNode | null, byId: Map<string, DiagramNode>): DiagramNode {
  const out: DiagramNode = {
    id: node.id,
    key: parent ? node.key : node.machine.id,
    type: node.type,
    history: node.type === "history" ? (node.history === "deep" ? "deep" : "shallow") : null,
    tags: [...node.tags],
    invokes: node.invoke.map((inv) => invokeName(inv.id, inv.src)),
    entry: effectsOf(machine, node.entry),
    exit: effectsOf(machine, node.exit),
    initial: null,
    children: [],
    parent,
  }
  byId.set(node.id, out)
  const children = Object.values(node.states as Record<string, AnyStateNode>).map((child) => toNode(machine, child, out, byId))
  const initialTarget = node.type === "compound" ? node.initial?.target?.[0] : undefined
  return Object.assign(out, { children, initial: initialTarget ? initialTarget.id : null })
}

function collectEdges(machine: AnyStateMachine, node: AnyStateNode, byId: Map<string, DiagramNode>, out: DiagramEdge[]): void {
  const from = byId.get(node.id)
  if (!from) throw new Error(`state node "${node.id}" is missing from the diagram tree`)
  const lists: Array<[string, readonly TransitionLike[]]> = [...(node.transitions as Map<string, TransitionLike[]>)]
  if (node.always?.length) lists.push(["", node.always as TransitionLike[]])
  const invokeNames = new Map(node.invoke.map((inv) => [inv.id, invokeName(inv.id, inv.src)]))
  for (const [type, transitions] of lists) {
    const event = eventLabel(type, node.id, invokeNames)
    for (const t of transitions) {
      const guard = guardLabel(t.guard)
      const effects = effectsOf(machine, t.actions)
      const targets = t.target?.length ? t.target : null
      if (!targets) {
        out.push({ from, to: from, event, guard, effects, targetless: true })
        continue
      }
      for (const target of targets) {
        const to = byId.get(target.id)
        if (!to) throw new Error(`transition "${type}" of "${node.id}" targets unknown state "${target.id}"`)
        out.push({ from, to, event, guard, effects, targetless: false })
      }
    }
  }
  for (const child of Object.values(node.states as Record<string, AnyStateNode>)) collectEdges(machine, child, byId, out)
}

interface TransitionLike {
  target?: ReadonlyArray<{ id: string }> | undefined
  guard?: unknown
  actions?: readonly unknown[]
}

// An invoke without an explicit id gets a generated one ("0.job.running"); its source name reads better,
// unless the source is inline logic, which xstate names "xstate.invoke.<generated id>".
function invokeName(id: string, src: unknown): string {
  const srcName = typeof src === "string" && !src.startsWith("xstate.invoke.") ? src : "actor"
  return /^\d+\./.test(id) ? srcName : id
}

/** Turns xstate's internal event types into the words a reader expects. */
export function eventLabel(type: string, stateId: string, invokeNames: ReadonlyMap<string, string>): string {
  if (type === "") return "always"
  const after = `xstate.after.`
  if (type.startsWith(after)) {
    const delay = type.slice(after.length, type.endsWith(`.${stateId}`) ? -(stateId.length + 1) : undefined)
    return /^\d+$/.test(delay) ? `after ${delay}ms` : `after ${delay}`
  }
  const doneActor = "xstate.done.actor."
  if (type.startsWith(doneActor)) return `done(${invokeNames.get(type.slice(doneActor.length)) ?? type.slice(doneActor.length)})`
  const errorActor = "xstate.error.actor."
  if (type.startsWith(errorActor)) return `error(${invokeNames.get(type.slice(errorActor.length)) ?? type.slice(errorActor.length)})`
  if (type.startsWith("xstate.done.state.")) return "onDone"
  return type
}

/**
 * Names a guard: a named guard by its name (params are not shown), a combinator as `and(a, b)`, `or(...)`,
 * `not(...)`, `stateIn` as `in(state)`, an anonymous inline function as `inline`.
 */
export function guardLabel(guard: unknown): string | null {
  if (guard === undefined || guard === null) return null
  if (typeof guard === "string") return guard
  if (typeof guard === "function") {
    const fn = guard as { name?: string; guards?: unknown; stateValue?: unknown; check?: unknown }
    if (Array.isArray(fn.guards)) return `${fn.name || "guard"}(${fn.guards.map((g) => guardLabel(g) ?? "?").join(", ")})`
    if (fn.stateValue !== undefined && typeof fn.check === "function") return `in(${stateValueText(fn.stateValue)})`
    // An arrow function written inline as `guard: () => ...` takes the property name "guard".
    return fn.name && fn.name !== "guard" ? fn.name : "inline"
  }
  if (typeof guard === "object" && typeof (guard as { type?: unknown }).type === "string") {
    return (guard as { type: string }).type
  }
  return "guard"
}

function stateValueText(value: unknown): string {
  if (typeof value === "string") return value.replace(/^#/, "")
  if (value && typeof value === "object") {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k}.${stateValueText(v)}`)
      .join(", ")
  }
  return String(value)
}
