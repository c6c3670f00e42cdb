// What a Forge tool shows of itself in opencode 1.18.33's TUI. A plugin tool is drawn as one line, `⚙ <tool> [k=v, …]`,
// from the scalar values of the tool part's stored input and nothing else: not its title, metadata or (unless the
// user turns on generic tool output) its output; a plugin key's permission dialog says only "Call tool <key>"; and a
// plugin's ctx.metadata() does nothing (it returns an effect opencode never runs). The input is stored from the very
// object tool.execute.before is handed, as soon as the call starts; so the hook, before anything else and without
// waiting, puts what the user must see there as extra scalar fields (the plan and its path, each criterion with its
// evidence, where a command runs). The line keeps them through the dialog and after. The model never sees them:
// hideScreenFields takes them out of every request (messages.transform).
// A body of text the model sends (a file's content, a plan) would fill the screen: it is folded. Its argument shows its
// size and first lines, and the text itself moves to `forge:<argument>` as an object, which the line leaves out;
// execute() and every model request get it back in its place, so neither the tool nor the model ever sees the fold.

import { sizeText } from "../../services/files/file.kind"
import { countOf } from "../../services/text/count.text"

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

/** What showOnCallLine and foldBodies put on a call's input object: opencode hands that same object to execute(). */
interface ScreenMarks {
  /** Keys that are not the model's. */
  added: Set<string>
  /** The model's bodies of text, by argument, where the object now holds their summary. */
  folded: Map<string, string>
}
const screenMarks = new WeakMap<object, ScreenMarks>()

/** Where a folded body is kept in the stored input: an object, so the line leaves it out. */
const FOLD_PREFIX = "forge:"
/** First lines of a folded body shown on its line. */
const FOLD_LINES = 3

function marksOf(args: unknown): { input: Record<string, unknown>; marks: ScreenMarks } | undefined {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined
  const input = args as Record<string, unknown>
  const marks = screenMarks.get(input) ?? { added: new Set<string>(), folded: new Map<string, string>() }
  screenMarks.set(input, marks)
  return { input, marks }
}

/** Puts `fields` on a call's input object (`argKeys`: the tool's own arguments, which a field never replaces). */
export function showOnCallLine(args: unknown, fields: ScreenFields, argKeys: ReadonlySet<string>): void {
  const marked = marksOf(args)
  if (marked === undefined) return
  const { input } = marked
  const { added } = marked.marks
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

/**
 * Folds the call's bodies of text (`bodies`: the tool's arguments that carry one) that would take more than a short
 * line: the argument shows "40 lines, 1.2 KB: <first lines>", the text moves to `forge:<argument>`.
 */
export function foldBodies(args: unknown, bodies: ReadonlySet<string>): void {
  const marked = marksOf(args)
  if (marked === undefined) return
  const { input, marks } = marked
  for (const key of bodies) {
    const text = input[key]
    if (typeof text !== "string" || marks.folded.has(key) || (text.length <= LONG_ARGUMENT && !text.includes("\n"))) continue
    input[key] = bodySummary(text)
    input[`${FOLD_PREFIX}${key}`] = { text }
    marks.folded.set(key, text)
    marks.added.add(`${FOLD_PREFIX}${key}`)
  }
}

/** "40 lines, 1.2 KB: # Title ⏎ ## Steps ⏎ - one": a body's size and its first lines, as one short line. */
export function bodySummary(text: string): string {
  const lines = text.split("\n")
  const count = text.endsWith("\n") ? lines.length - 1 : lines.length
  const filled = lines.map((line) => line.trim()).filter((line) => line !== "")
  const more = filled.length > FOLD_LINES ? " ⏎ …" : ""
  return screenText(`${countOf(count, "line")}, ${sizeText(Buffer.byteLength(text))}: ${filled.slice(0, FOLD_LINES).join(" ⏎ ")}${more}`)
}

/** A call's arguments as the model sent them: `raw` without what the screen put there (a copy when it put anything). */
export function withoutScreenFields(raw: unknown): unknown {
  const marks = raw !== null && typeof raw === "object" ? screenMarks.get(raw) : undefined
  if (marks === undefined) return raw
  const entries = Object.entries(raw as Record<string, unknown>).filter(([key]) => !marks.added.has(key))
  return Object.fromEntries(entries.map(([key, value]) => [key, marks.folded.get(key) ?? value]))
}

function foldedText(value: unknown): string | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined
  const { text } = value as { text?: unknown }
  return typeof text === "string" && Object.keys(value).length === 1 ? text : undefined
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
      const fields = input as Record<string, unknown>
      for (const key of Object.keys(fields)) {
        if (keys.has(key)) continue
        // A folded body goes back in its place (only where it is the text the fold kept).
        const body = key.startsWith(FOLD_PREFIX) ? foldedText(fields[key]) : undefined
        const argument = key.slice(FOLD_PREFIX.length)
        if (body !== undefined && keys.has(argument)) fields[argument] = body
        delete fields[key]
      }
    }
  }
}
