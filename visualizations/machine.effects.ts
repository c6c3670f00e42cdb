import type { AnyStateMachine } from "xstate"

// Which of a machine's actions are effects, and how they read on a diagram.
//
// An effect is an action xstate hands to the executor as a custom action: a placeholder from `setup({ actions })`
// (a plain function each harness replaces) or an inline function. Built-ins (assign, emit, raise, sendTo, log,
// enqueueActions, ...) are functions that carry a `resolve` method: xstate itself tells them apart by
// `"resolve" in implementation` (resolveAndExecuteActionsWithContext), so the diagrams use that very test on
// `machine.implementations.actions` rather than a list of names or `type: "xstate.*"` strings. A named action
// with no implementation is drawn too: xstate runs it as a custom action, and only a harness can provide it.
// What a built-in does at run time (an enqueueActions body, say) is not visible statically and is not drawn.

export interface DiagramEffect {
  /** The action's name, e.g. "writeDocument"; an inline function's name, or "inline". */
  name: string
  /** The params as a brief text: static values ("ticked", "warn, 2"), "…" when computed; null when none. */
  params: string | null
  /** How the effect reads: `writeDocument(ticked)`, `requestLocate(…)`, `save`. */
  label: string
}

/** The effects among a list of action references (a transition's actions, a state's entry or exit), in order. */
export function effectsOf(machine: AnyStateMachine, actions: readonly unknown[] | undefined): DiagramEffect[] {
  const implementations = machine.implementations.actions as Record<string, unknown>
  const out: DiagramEffect[] = []
  for (const action of actions ?? []) {
    const ref = actionRef(action)
    if (!ref) continue
    const implementation = ref.inline ?? (Object.hasOwn(implementations, ref.name) ? implementations[ref.name] : undefined)
    if (isBuiltIn(implementation)) continue
    const params = "params" in ref ? paramsText(ref.params) : null
    out.push({ name: ref.name, params, label: params === null ? ref.name : `${ref.name}(${params})` })
  }
  return out
}

/** The text of a list of effects: `writeDocument(ticked), ledger(kill)`. */
export function effectsLabel(effects: readonly DiagramEffect[]): string {
  return effects.map((e) => e.label).join(", ")
}

/** xstate's own test for a built-in action: it resolves itself (`resolve`) instead of being executed as is. */
function isBuiltIn(implementation: unknown): boolean {
  return (typeof implementation === "function" || (typeof implementation === "object" && implementation !== null)) && "resolve" in implementation
}

type ActionRef = { name: string; inline?: unknown; params?: unknown }

function actionRef(action: unknown): ActionRef | null {
  if (typeof action === "string") return { name: action }
  if (typeof action === "function") return { name: action.name || "inline", inline: action }
  if (action && typeof action === "object" && typeof (action as { type?: unknown }).type === "string") {
    const { type, ...rest } = action as { type: string; params?: unknown }
    return "params" in rest ? { name: type, params: rest.params } : { name: type }
  }
  return null
}

const MAX_VALUE = 24

/** Values only, in key order: `{ change: "ticked" }` reads `ticked`, `{ kind: "warn", wave: 2 }` reads `warn, 2`. */
function paramsText(params: unknown): string | null {
  if (params === undefined) return null
  if (typeof params === "function") return "…"
  if (params && typeof params === "object" && !Array.isArray(params)) {
    const values = Object.values(params as Record<string, unknown>)
    return values.length ? values.map(valueText).join(", ") : null
  }
  return valueText(params)
}

function valueText(value: unknown): string {
  if (typeof value === "function") return "…"
  if (typeof value === "string") return value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE - 1)}…` : value
  if (Array.isArray(value)) return value.length ? `[${value.length <= 3 ? value.map(valueText).join(", ") : "…"}]` : "[]"
  if (value && typeof value === "object") return "{…}"
  return String(value)
}
