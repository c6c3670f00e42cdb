import type { AnyStateMachine, AnyStateNode } from "xstate"
import type { ExtractedState, ExtractedTransition, MaybeArray } from "./extractor.load"
import { extractedGuardText, runtimeGuardText } from "./guard.text"

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
  /** Every guard a transition names, as guard.text.ts writes it (params and what an and/or/not combines included). */
  guards: string[]
  /** Every invoked actor: the state, the source it invokes (by name, or "(inline)") and the invoke's id. */
  invokes: string[]
}

const arrayOf = <T>(value: MaybeArray<T> | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value])

const pathText = (path: readonly string[]): string => path.join(".") || "(root)"

function transitionText(source: readonly string[], event: string, index: number, guard: string | null, targets: readonly string[]): string {
  return `${pathText(source)} on ${event} #${index}${guard ? ` [${guard}]` : ""} -> ${targets.join(", ") || "(stays)"}`
}

const invokeText = (source: readonly string[], src: string, id: string): string => `${pathText(source)} invokes ${src} as ${id}`

function shapeOf(states: string[], tags: string[], transitions: Array<{ text: string; guard: string | null }>, invokes: string[]): MachineShape {
  const guards = new Set(transitions.flatMap((t) => (t.guard ? [t.guard] : [])))
  return { states: states.sort(), tags: tags.sort(), transitions: transitions.map((t) => t.text).sort(), guards: [...guards].sort(), invokes: invokes.sort() }
}

interface RuntimeTransition {
  target?: ReadonlyArray<{ path: readonly string[] }> | undefined
  guard?: unknown
}

/** The shape of the machine object the code runs, read from `machine.root`. */
export function shapeOfMachine(machine: AnyStateMachine): MachineShape {
  const states: string[] = []
  const tags: string[] = []
  const transitions: Array<{ text: string; guard: string | null }> = []
  const invokes: string[] = []
  const visit = (node: AnyStateNode): void => {
    if (node.path.length > 0) states.push(`${pathText(node.path)} (${node.type})`)
    for (const tag of node.tags) tags.push(`${pathText(node.path)}: ${tag}`)
    // xstate names an inline actor `xstate.invoke.<n>.<state id>`; the config says whether it was given by name.
    const configured = arrayOf(node.config.invoke as MaybeArray<{ src?: unknown }> | undefined)
    node.invoke.forEach((invoke, i) => {
      const named = typeof configured[i]?.src === "string" && typeof invoke.src === "string"
      invokes.push(invokeText(node.path, named ? (invoke.src as string) : "(inline)", invoke.id))
    })
    const lists: Array<[string, readonly RuntimeTransition[]]> = [...(node.transitions as Map<string, RuntimeTransition[]>)]
    if (node.always?.length) lists.push(["", node.always as RuntimeTransition[]])
    for (const [event, candidates] of lists) {
      candidates.forEach((t, i) => {
        const guard = runtimeGuardText(t.guard)
        const targets = (t.target ?? []).map((target) => pathText(target.path))
        transitions.push({ text: transitionText(node.path, event, i, guard, targets), guard })
      })
    }
    for (const child of Object.values(node.states as Record<string, AnyStateNode>)) visit(child)
  }
  visit(machine.root)
  return shapeOf(states, tags, transitions, invokes)
}

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
  const invokes: string[] = []
  const add = (source: string[], event: string, list: MaybeArray<ExtractedTransition> | undefined): void => {
    arrayOf(list).forEach((t, i) => {
      // The extractor keeps a named guard's name and data params; anything else only as source text.
      const guard = extractedGuardText(t.cond)
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
      invokes.push(invokeText(path, invoke.kind === "named" ? invoke.src : "(inline)", invokeId))
      add(path, `xstate.done.actor.${invokeId}`, invoke.onDone)
      add(path, `xstate.error.actor.${invokeId}`, invoke.onError)
    })
  }
  return shapeOf(states, tags, transitions, invokes)
}
