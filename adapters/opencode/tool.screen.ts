// What a Forge tool shows of itself in opencode 1.18.33's TUI. A plugin tool is drawn as one line, `⚙ <tool> [k=v, …]`,
// from the scalar values of the tool part's stored input and nothing else: not its title, metadata or (unless the
// user turns on generic tool output) its output; a plugin key's permission dialog says only "Call tool <key>"; and a
// plugin's ctx.metadata() does nothing (it returns an effect opencode never runs). The input is stored from the very
// object tool.execute.before is handed, as soon as the call starts; so the hook, before anything else and without
// waiting, puts what the user must see there as extra scalar fields (the plan and its path, each criterion with its
// evidence, where a command runs). The line keeps them through the dialog and after. The model never sees them:
// hideScreenFields takes them out of every request (messages.transform).

/** One value on a tool line: opencode shows only strings, numbers and booleans. */
export type ScreenValue = string | number | boolean

/** Fields drawn on a call's line, in order, beside the model's own arguments. */
export type ScreenFields = Record<string, ScreenValue>

/** Longest value drawn on a tool line: the line wraps, and a wall of text helps nobody. */
const VALUE_LIMIT = 200
/** A model's argument longer than this (or of several lines) is drawn after the line's fields. */
const LONG_ARGUMENT = 80

/** A value as one short line. */
export function screenText(value: string, limit = VALUE_LIMIT): string {
  const flat = value.replace(/\s+/g, " ").trim()
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat
}

/** The fields each call's input object carries for the screen: opencode hands that same object to execute(). */
const screenKeys = new WeakMap<object, Set<string>>()

/** Puts `fields` on a call's input object (`argKeys`: the tool's own arguments, which a field never replaces). */
export function showOnCallLine(args: unknown, fields: ScreenFields, argKeys: ReadonlySet<string>): void {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return
  const input = args as Record<string, unknown>
  const added = screenKeys.get(input) ?? new Set<string>()
  screenKeys.set(input, added)
  for (const [key, value] of Object.entries(fields)) {
    const name = argKeys.has(key) ? `${key} ` : key
    input[name] = typeof value === "string" ? screenText(value) : value
    added.add(name)
  }
  // The model's long texts (a plan's content, an edit's strings) go last, so the line starts with what matters.
  for (const [key, value] of Object.entries(input)) {
    if (!argKeys.has(key) || typeof value !== "string" || (value.length <= LONG_ARGUMENT && !value.includes("\n"))) continue
    delete input[key]
    input[key] = value
  }
}

/** A call's arguments as the model sent them: `raw` without the fields showOnCallLine put there (a copy when it did). */
export function withoutScreenFields(raw: unknown): unknown {
  const added = raw !== null && typeof raw === "object" ? screenKeys.get(raw) : undefined
  if (added === undefined) return raw
  return Object.fromEntries(Object.entries(raw as Record<string, unknown>).filter(([key]) => !added.has(key)))
}

interface ToolPartLike {
  type: string
  tool?: string
  state?: { input?: unknown }
}

/**
 * Takes the screen fields out of the Forge tool calls of one model request (opencode hands the hook a copy made for
 * that request; the stored parts keep them for the screen). `argKeys` lists each Forge tool's own argument names.
 */
export function hideScreenFields(messages: readonly { parts: readonly unknown[] }[], argKeys: ReadonlyMap<string, ReadonlySet<string>>): void {
  for (const message of messages) {
    for (const part of message.parts as ToolPartLike[]) {
      if (part.type !== "tool" || part.tool === undefined) continue
      const keys = argKeys.get(part.tool)
      const input = part.state?.input
      if (keys === undefined || input === null || typeof input !== "object" || Array.isArray(input)) continue
      for (const key of Object.keys(input)) if (!keys.has(key)) delete (input as Record<string, unknown>)[key]
    }
  }
}
