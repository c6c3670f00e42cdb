import type { AnyStateMachine, AnyStateNode } from "xstate"

// A machine as plain JSON config, for Stately's editor and for another harness: every state (type, initial, tags,
// entry and exit actions, invoked actors), every transition (event, guard, actions, targets as `#id` references) and
// every eventless one, read from `machine.root`. Implementations stay names: `createMachine(config)` builds the same
// structure, and a harness provides the guards, actions and actors by those names (`machine.provide()`). What a
// config cannot hold as data (the context factory, an inline action) is left out; a guard never is: a transition
// without its guard would be another machine, so a guard with no JSON form (an inline function, an and/or/not written
// in the transition rather than named in setup()) is an error naming where it is.

type Json = string | number | boolean | null | Json[] | { [key: string]: Json }

/** A machine's config as JSON: `createMachine(config)` and Stately's extractor both read it. */
export type MachineConfigJson = { [key: string]: Json }

interface RuntimeTransition {
  target?: ReadonlyArray<{ id: string }> | undefined
  guard?: unknown
  actions?: readonly unknown[]
  reenter?: boolean
}

const AFTER = "xstate.after."
const DONE_ACTOR = "xstate.done.actor."
const ERROR_ACTOR = "xstate.error.actor."
const DONE_STATE = "xstate.done.state."

/** The machine's config, root first. */
export function machineJson(machine: AnyStateMachine): MachineConfigJson {
  return { id: machine.id, ...(machine.version === undefined ? {} : { version: machine.version }), ...stateJson(machine.root) }
}

function stateJson(node: AnyStateNode): MachineConfigJson {
  const out: MachineConfigJson = {}
  if (node.type === "parallel" || node.type === "final") out.type = node.type
  if (node.type === "history") Object.assign(out, { type: "history", history: node.history === "deep" ? "deep" : "shallow" })
  const initial = node.type === "compound" ? node.initial?.target?.[0]?.key : undefined
  if (initial !== undefined) out.initial = initial
  if (node.tags.length > 0) out.tags = [...node.tags]
  const entry = actionsJson(node.entry)
  if (entry.length > 0) out.entry = entry
  const exit = actionsJson(node.exit)
  if (exit.length > 0) out.exit = exit
  const on: Record<string, Json> = {}
  const after: Record<string, Json> = {}
  const invokes = node.invoke.map((inv) => ({ id: inv.id, src: typeof inv.src === "string" ? inv.src : "actor" }) as { [key: string]: Json })
  for (const [type, candidates] of node.transitions as Map<string, RuntimeTransition[]>) {
    const transitions = candidates.map((t, i) => transitionJson(t, `${node.id} on ${type} #${i}`))
    if (type.startsWith(AFTER)) after[type.slice(AFTER.length, -(node.id.length + 1))] = transitions
    else if (type.startsWith(DONE_ACTOR) || type.startsWith(ERROR_ACTOR)) {
      const id = type.slice(type.startsWith(DONE_ACTOR) ? DONE_ACTOR.length : ERROR_ACTOR.length)
      const invoke = invokes.find((inv) => inv.id === id)
      if (invoke === undefined) on[type] = transitions
      else invoke[type.startsWith(DONE_ACTOR) ? "onDone" : "onError"] = transitions
    } else if (type.startsWith(DONE_STATE)) out.onDone = transitions
    else on[type] = transitions
  }
  if (invokes.length > 0) out.invoke = invokes
  if (Object.keys(on).length > 0) out.on = on
  if (Object.keys(after).length > 0) out.after = after
  if (node.always?.length) out.always = (node.always as RuntimeTransition[]).map((t, i) => transitionJson(t, `${node.id} always #${i}`))
  const children = Object.entries(node.states as Record<string, AnyStateNode>)
  if (children.length > 0) out.states = Object.fromEntries(children.map(([key, child]) => [key, stateJson(child)]))
  return out
}

function transitionJson(t: RuntimeTransition, where: string): MachineConfigJson {
  const out: MachineConfigJson = {}
  if (t.target?.length) out.target = t.target.map((target) => `#${target.id}`)
  if (t.guard !== undefined) out.guard = guardJson(t.guard, where)
  const actions = actionsJson(t.actions ?? [])
  if (actions.length > 0) out.actions = actions
  if (t.reenter === true) out.reenter = true
  return out
}

/** A guard by its name (with its params when they are data); a combinator or an inline function has no JSON form. */
function guardJson(guard: unknown, where: string): Json {
  if (typeof guard === "string") return guard
  if (guard !== null && typeof guard === "object" && typeof (guard as { type?: unknown }).type === "string") {
    const { type, params } = guard as { type: string; params?: unknown }
    return params === undefined || typeof params === "function" ? type : { type, params: params as Json }
  }
  const combinator = typeof guard === "function" && Array.isArray((guard as { guards?: unknown }).guards) ? `${guard.name}() ` : ""
  const what = `an inline ${combinator}guard`
  throw new Error(`${where} has ${what}, which has no JSON form: name it in the machine's setup() guards and refer to it by that name`)
}

/** Named actions (with their params when they are data); built-ins written inline (an `assign(…)`) are left out. */
function actionsJson(actions: readonly unknown[]): Json[] {
  const out: Json[] = []
  for (const action of actions) {
    if (typeof action === "string") out.push(action)
    else if (action !== null && typeof action === "object" && typeof (action as { type?: unknown }).type === "string") {
      const { type, params } = action as { type: string; params?: unknown }
      out.push(params === undefined || typeof params === "function" ? type : { type, params: params as Json })
    }
  }
  return out
}
