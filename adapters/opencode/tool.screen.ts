import type { ToolContext } from "@opencode-ai/plugin"

// What a Forge tool shows of itself. opencode 1.18.33's TUI draws a plugin tool as one line, `⚙ <tool> [k=v, …]`, built
// from the scalar values of the tool part's input and nothing else: not its title, metadata or (unless the user turns
// on generic tool output) its output; and the permission dialog of a plugin's key says only "Call tool <key>". The part's
// input is stored from the very object execute() received whenever the tool reports metadata, so a Forge tool puts
// what the user must see (the plan and its path, a job's state and output) on that object as extra scalar fields, and
// sets the part's title and metadata for the clients that draw those (web, desktop, SDK). The model never sees the
// extra fields: hideScreenFields takes them out of every request (messages.transform).

/** One value on a tool line: opencode shows only strings, numbers and booleans. */
export type ScreenValue = string | number | boolean

/** What a tool shows while it runs or once it is done. */
export interface ToolLine {
  /** The tool part's title: what happened, in a few words ("Plan created: .opencode/plan/…"). */
  title: string
  /** Fields drawn on the TUI's tool line, in order, after the model's own arguments. */
  fields: Record<string, ScreenValue>
  /** The tool part's metadata (default: the fields). */
  metadata?: Record<string, unknown>
}

export interface ToolScreen {
  /** Updates the running tool's line (the dialog it is about to open is drawn right under it). */
  show(line: ToolLine): Promise<void>
}

/** Longest value drawn on a tool line: the line wraps, and a wall of text helps nobody. */
const VALUE_LIMIT = 200
/** A model's argument longer than this (or of several lines) is drawn after the line's fields. */
const LONG_ARGUMENT = 80

/** A value as one short line. */
export function screenText(value: string, limit = VALUE_LIMIT): string {
  const flat = value.replace(/\s+/g, " ").trim()
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat
}

/** The screen of one call: `raw` is the very input object opencode passed to execute(). */
export function createToolScreen(raw: unknown, ctx: ToolContext, argKeys: ReadonlySet<string>): ToolScreen {
  const input = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined
  const shown = new Set<string>()
  return {
    async show(line) {
      if (input !== undefined) {
        // The previous line's fields go first: a field that no longer applies must not linger.
        for (const key of shown) delete input[key]
        shown.clear()
        for (const [key, value] of Object.entries(line.fields)) {
          // A field never hides an argument of the model's own.
          const name = argKeys.has(key) ? `${key} ` : key
          input[name] = typeof value === "string" ? screenText(value) : value
          shown.add(name)
        }
        // The model's long texts (a plan's content, an edit's strings) go last, so the line starts with what happened.
        for (const [key, value] of Object.entries(input)) {
          if (!argKeys.has(key) || typeof value !== "string" || (value.length <= LONG_ARGUMENT && !value.includes("\n"))) continue
          delete input[key]
          input[key] = value
        }
      }
      // Typed void, but opencode returns the pending part update: awaited, the tool's completion cannot overtake it.
      await Promise.resolve(ctx.metadata({ title: line.title, metadata: line.metadata ?? line.fields }))
    },
  }
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
