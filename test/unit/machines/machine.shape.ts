import type { AnyStateMachine, AnyStateNode } from "xstate"
import type { ExtractedState, ExtractedTransition, MaybeArray } from "./extractor.load"

// A machine's structure as sorted lists of plain strings, so two readings of one machine (the object the code runs,
// and the config Stately's extractor reads from the source) compare with one `toEqual` and a readable diff.

export interface MachineShape {
  /** Every state by path, with its type: "exited.unread (atomic)". */
  states: string[]
  /** "running: alive" for every tag of every state. */
  tags: string[]
  /**
   * Every transition candidate: source path, xstate event type ("" for always), its place among the event's
   * candidates (order decides which one fires), guard, target paths. E.g. `running on job.tick #1 [isIdle] -> earlyReturned`.
   */
  transitions: string[]
  /** Every guard a transition names. */
  guards: string[]
}

const pathText = (path: readonly string[]): string => path.join(".") || "(root)"

function transitionText(source: readonly string[], event: string, index: number, guard: string | null, targets: readonly string[]): string {
  return `${pathText(source)} on ${event} #${index}${guard ? ` [${guard}]` : ""} -> ${targets.join(", ") || "(stays)"}`
}

function shapeOf(states: string[], tags: string[], transitions: Array<{ text: string; guard: string | null }>): MachineShape {
  const guards = new Set(transitions.flatMap((t) => (t.guard ? [t.guard] : [])))
  return { states: states.sort(), tags: tags.sort(), transitions: transitions.map((t) => t.text).sort(), guards: [...guards].sort() }
}

interface RuntimeTransition {
  target?: ReadonlyArray<{ path: readonly string[] }> | undefined
  guard?: unknown
}

/** A runtime guard by name; a combinator shows what it combines (`and(a, b)`), an inline function reads "inline". */
function guardName(guard: unknown): string | null {
  if (guard === undefined || guard === null) return null
  if (typeof guard === "string") return guard
  if (typeof guard === "function") {
    const inner = (guard as { guards?: unknown }).guards
    return Array.isArray(inner) ? `${guard.name}(${inner.map(guardName).join(", ")})` : "inline"
  }
  const type = (guard as { type?: unknown }).type
  return typeof type === "string" ? type : "inline"
}

/** The shape of the machine object the code runs, read from `machine.root`. */
export function shapeOfMachine(machine: AnyStateMachine): MachineShape {
  const states: string[] = []
  const tags: string[] = []
  const transitions: Array<{ text: string; guard: string | null }> = []
  const visit = (node: AnyStateNode): void => {
    if (node.path.length > 0) states.push(`${pathText(node.path)} (${node.type})`)
    for (const tag of node.tags) tags.push(`${pathText(node.path)}: ${tag}`)
    const lists: Array<[string, readonly RuntimeTransition[]]> = [...(node.transitions as Map<string, RuntimeTransition[]>)]
    if (node.always?.length) lists.push(["", node.always as RuntimeTransition[]])
    for (const [event, candidates] of lists) {
      candidates.forEach((t, i) => {
        const guard = guardName(t.guard)
        const targets = (t.target ?? []).map((target) => pathText(target.path))
        transitions.push({ text: transitionText(node.path, event, i, guard, targets), guard })
      })
    }
    for (const child of Object.values(node.states as Record<string, AnyStateNode>)) visit(child)
  }
  visit(machine.root)
  return shapeOf(states, tags, transitions)
}

const arrayOf = <T>(value: MaybeArray<T> | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value])

/**
 * The shape of an extracted config of the machine `machineId`, with targets resolved the way xstate 5 does: `#id.rest`
 * from the state with that id, `.child` from the source, anything else from the source's parent (a sibling).
 */
export function shapeOfConfig(machineId: string, root: ExtractedState): MachineShape {
  const nodes = new Map<string, ExtractedState>()
  const ids = new Map<string, string[]>()
  const index = (node: ExtractedState, path: string[]): void => {
    nodes.set(path.join("."), node)
    ids.set(node.id ?? [machineId, ...path].join("."), path)
    for (const [key, child] of Object.entries(node.states ?? {})) index(child, [...path, key])
  }
  index(root, [])
  if (!ids.has(machineId)) ids.set(machineId, [])

  const resolveTarget = (source: string[], target: string): string => {
    const [head = "", ...rest] = target.split(".")
    const base = head.startsWith("#") ? ids.get(head.slice(1)) : head === "" ? source : [...source.slice(0, -1), head]
    const path = base ? [...base, ...rest] : null
    // A target the extractor lost the state of stays in the shape, so the diff shows it.
    return path && nodes.has(path.join(".")) ? pathText(path) : `${target} (no such state)`
  }

  const states: string[] = []
  const tags: string[] = []
  const transitions: Array<{ text: string; guard: string | null }> = []
  const add = (source: string[], event: string, list: MaybeArray<ExtractedTransition> | undefined): void => {
    arrayOf(list).forEach((t, i) => {
      // The extractor keeps a named guard's name; anything else it keeps only as source text.
      const guard = t.cond ? (t.cond.kind === "named" ? t.cond.type : "inline") : null
      const targets = arrayOf(t.target).map((target) => resolveTarget(source, target))
      transitions.push({ text: transitionText(source, event, i, guard, targets), guard })
    })
  }
  for (const [key, node] of nodes) {
    const path = key === "" ? [] : key.split(".")
    const id = node.id ?? [machineId, ...path].join(".")
    if (path.length > 0) states.push(`${pathText(path)} (${node.type ?? (node.states && Object.keys(node.states).length > 0 ? "compound" : "atomic")})`)
    for (const tag of arrayOf(node.tags)) tags.push(`${pathText(path)}: ${tag}`)
    for (const [event, list] of Object.entries(node.on ?? {})) add(path, event, list)
    for (const [delay, list] of Object.entries(node.after ?? {})) add(path, `xstate.after.${delay}.${id}`, list)
    add(path, "", node.always)
    add(path, `xstate.done.state.${id}`, node.onDone)
    arrayOf(node.invoke).forEach((invoke, i) => {
      const invokeId = invoke.id ?? `${i}.${id}`
      add(path, `xstate.done.actor.${invokeId}`, invoke.onDone)
      add(path, `xstate.error.actor.${invokeId}`, invoke.onError)
    })
  }
  return shapeOf(states, tags, transitions)
}
