import type * as z from "zod"
import { type Patch, type PatchOperation, patchSchema } from "./patch.schema"
import { detectLineEndings, finalLineBreak, linesOf, splitsLineBreak, withLineBreaks } from "./text.eol"

// forge_patch's text engine: exact matches only, all patches or none. The anchor patched the first match and fell
// back to fuzzy matches, silently editing the wrong place; here a text that is missing, ambiguous or overlapping
// is refused with what the model needs to fix it, and nothing is ever applied on a guess.

export interface PatchChange {
  /** 1-based position of the patch in the call. */
  index: number
  op: PatchOperation
  /** 1-based line, in the returned text, where the change starts (for a swap: the earlier of its two places). */
  line: number
  /** A swap's later place. */
  otherLine?: number
}

export interface PatchResult {
  text: string
  changes: PatchChange[]
}

export interface PatchProblem {
  /** 1-based position of the failing patch in the call. */
  index: number
  message: string
}

/** A call that applied nothing: every failing patch with its reason. The message names each, for the model. */
export class PatchError extends Error {
  readonly problems: readonly PatchProblem[]

  constructor(problems: readonly PatchProblem[], total: number, head?: string) {
    const first =
      head ??
      (total === 0
        ? "patches is empty: give at least one patch"
        : `${problems.length} of ${total} patch${total === 1 ? "" : "es"} failed, so none was applied and the text is unchanged:`)
    super([first, ...problems.map((p) => `- patch ${p.index}: ${p.message}`)].join("\n"))
    this.name = "PatchError"
    this.problems = problems
  }
}

/** A replaced range of the text before a patch; several of one patch are sorted and do not overlap. */
interface Edit {
  start: number
  end: number
  insert: string
}

interface Planned {
  edits: Edit[]
  /** Where the change starts in the text after the patch (a swap has two places). */
  landed: number[]
}

interface Found {
  starts: number[]
  ends: number[]
}

const NO_CHANGE_MESSAGE =
  "the patches together leave the text exactly as it was, so nothing was written (the final line break, or its absence, is always kept: to change only that, rewrite the file with forge_write)"

const LIST_LINES = 10
const QUOTE_CHARS = 60

/**
 * Applies `patches` in order, each to the result of the previous, and returns the new text with where each change
 * landed; or throws a PatchError listing every failing patch (each checked against the text the patches before it
 * that succeeded left). Line endings: a line break in `search`/`with` ("\n" or "\r\n") matches either kind in the
 * text; new text (`content`) gets the input text's line ending (a mixed text's more frequent one; a text without line
 * breaks takes `content` as written); existing lines keep theirs, and a swap moves text without converting it. A
 * match never splits a CRLF pair nor a surrogate pair (an emoji). The final line break is kept as it was: added back
 * if the patches removed it, dropped if the text had none (an emptied text stays empty). A result equal to the input
 * is refused: nothing would change.
 */
export function applyPatches(text: string, patches: readonly Patch[]): PatchResult {
  if (patches.length === 0) throw new PatchError([], 0)
  const newline = detectLineEndings(text).newline
  const problems: PatchProblem[] = []
  const tracked: { index: number; op: PatchOperation; offsets: number[] }[] = []
  let current = text
  patches.forEach((raw, i) => {
    const index = i + 1
    // The engine's own line: a caller that skipped the schema (or built a patch by hand) still gets a clear refusal.
    const parsed = patchSchema.safeParse(raw)
    if (!parsed.success) {
      problems.push({ index, message: describeIssues(parsed.error) })
      return
    }
    const planned = planPatch(current, parsed.data, newline, text)
    if (typeof planned === "string") {
      problems.push({ index, message: planned })
      return
    }
    current = applyEdits(current, planned.edits)
    for (const change of tracked) change.offsets = change.offsets.map((offset) => mapOffset(offset, planned.edits))
    tracked.push({ index, op: parsed.data.operation, offsets: planned.landed })
  })
  if (problems.length > 0) throw new PatchError(problems, patches.length)
  current = keepFinalLineBreak(text, current)
  // Each patch changed something, yet together they may not (one undoes another, or only the final line break moved):
  // saying "patched" then would be false.
  if (current === text) throw new PatchError([], patches.length, NO_CHANGE_MESSAGE)
  const lines = linesOf(
    current,
    tracked.flatMap((change) => change.offsets.map((offset) => Math.min(offset, current.length))),
  )
  let next = 0
  const changes = tracked.map(({ index, op, offsets }): PatchChange => {
    const [line = 1, otherLine] = offsets.map(() => lines[next++] ?? 1)
    return otherLine === undefined ? { index, op, line } : { index, op, line, otherLine }
  })
  return { text: current, changes }
}

/** The edits one patch makes to `text`, or why it cannot. `original` is the call's input, for a hint. */
function planPatch(text: string, patch: Patch, newline: "\n" | "\r\n" | undefined, original: string): Planned | string {
  if (patch.operation === "swap") return planSwap(text, patch, original)
  const at = locate(text, patch.search, patch.occurrence, "search", "occurrence", original)
  if (typeof at === "string") return at
  const insert = withLineBreaks(patch.content, newline)
  switch (patch.operation) {
    case "prepend":
      return { edits: [{ start: at.start, end: at.start, insert }], landed: [at.start] }
    case "append":
      return { edits: [{ start: at.end, end: at.end, insert }], landed: [at.end] }
    case "replace":
      if (insert === text.slice(at.start, at.end)) return "content is the same as the matched text: the replace would change nothing"
      return { edits: [{ start: at.start, end: at.end, insert }], landed: [at.start] }
  }
}

function planSwap(text: string, patch: Extract<Patch, { operation: "swap" }>, original: string): Planned | string {
  if (patch.search === patch.with) return "search and with are the same text: swapping them would change nothing"
  const a = locate(text, patch.search, patch.occurrence, "search", "occurrence", original)
  const b = locate(text, patch.with, patch.with_occurrence, "with", "with_occurrence", original)
  if (typeof a === "string" || typeof b === "string") return [a, b].filter((m) => typeof m === "string").join("; ")
  if (a.start < b.end && b.start < a.end) {
    const [lineA, lineB] = linesOf(text, [a.start, b.start])
    return `search ${quote(patch.search)} (line ${lineA}) and with ${quote(patch.with)} (line ${lineB}) overlap: a swap needs two separate texts`
  }
  // The texts move as the file has them (their own line endings), so a swap creates no new text to convert.
  const [first, second] = a.start < b.start ? [a, b] : [b, a]
  const firstText = text.slice(first.start, first.end)
  const secondText = text.slice(second.start, second.end)
  if (firstText === secondText) return "search and with match the same text: swapping them would change nothing"
  return {
    edits: [
      { start: first.start, end: first.end, insert: secondText },
      { start: second.start, end: second.end, insert: firstText },
    ],
    landed: [first.start, second.start + secondText.length - firstText.length],
  }
}

/** The one match of `needle` the patch means, or a refusal naming the text, its count and its lines. */
function locate(
  text: string,
  needle: string,
  occurrence: number | undefined,
  field: "search" | "with",
  occurrenceField: "occurrence" | "with_occurrence",
  original: string,
): { start: number; end: number } | string {
  const found = findExact(text, needle)
  const count = found.starts.length
  const name = `${field} ${quote(needle)}`
  if (count === 0) return `${name} was not found${missingHint(text, needle, original)}`
  if (occurrence === undefined && count > 1) {
    return `${name} occurs ${count} times (${listLines(text, found.starts)}): say which with ${occurrenceField} (1 to ${count})`
  }
  const chosen = (occurrence ?? 1) - 1
  const start = found.starts[chosen]
  const end = found.ends[chosen]
  if (start === undefined || end === undefined) {
    return `${occurrenceField} ${occurrence} asked, but ${name} occurs ${count === 1 ? "once" : `${count} times`} (${listLines(text, found.starts)})`
  }
  return { start, end }
}

/**
 * Every place `needle` occurs in `text`, overlapping ones included (so "aa" in "aaa" is ambiguous, not a first
 * match), with a line break in the needle matching either kind and no match splitting a CRLF pair.
 */
function findExact(text: string, needle: string): Found {
  const found: Found = { starts: [], ends: [] }
  const keep = (start: number, end: number): void => {
    if (splitsLineBreak(text, start) || splitsLineBreak(text, end) || splitsPair(text, start) || splitsPair(text, end)) return
    found.starts.push(start)
    found.ends.push(end)
  }
  const eol = detectLineEndings(text)
  if (eol.kind !== "mixed") {
    // One kind of line break (or none): writing the needle's breaks that way makes the match a plain indexOf.
    const exact = withLineBreaks(needle, eol.newline)
    for (let at = text.indexOf(exact); at !== -1; at = text.indexOf(exact, at + 1)) keep(at, at + exact.length)
    return found
  }
  // A lone "\n" in the pattern may not take the "\n" of a CRLF whose "\r" the needle's own text already matched.
  const pattern = needle.split(/\r?\n/).map(escapeRegExp).join("(?:\\r\\n|(?<!\\r)\\n)")
  const re = new RegExp(pattern, "g")
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    keep(m.index, m.index + m[0].length)
    re.lastIndex = m.index + 1
  }
  return found
}

/** Why a missing text may be missing; never applied, only said. */
function missingHint(text: string, needle: string, original: string): string {
  if (text === "") return ": the file is empty, so there is no text to match. Write it with forge_write"
  if (text !== original && findExact(original, needle).starts.length > 0) {
    return ": it was in the text before an earlier patch of this call changed it (each patch applies to the result of the ones before it)"
  }
  // Whitespace (line endings included) may differ anywhere, even where the needle has none.
  const chars = Array.from(needle.replace(/\s+/g, ""))
  if (chars.length === 0) return ""
  const loose = new RegExp(chars.map(escapeRegExp).join("\\s*"), "g")
  const starts: number[] = []
  for (let m = loose.exec(text); m !== null; m = loose.exec(text)) starts.push(m.index)
  if (starts.length === 0) return ""
  const places = starts.length === 1 ? "once" : `${starts.length} times`
  return (
    `; ignoring whitespace and line endings it would match ${places} (${listLines(text, starts)}), ` +
    "but patches match exactly: copy the text as the file has it, spaces, tabs and line breaks included"
  )
}

/** Whether `offset` falls inside a surrogate pair (one character such as an emoji): an edit there would mangle it. */
function splitsPair(text: string, offset: number): boolean {
  const high = text.charCodeAt(offset - 1)
  const low = text.charCodeAt(offset)
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff
}

function applyEdits(text: string, edits: readonly Edit[]): string {
  let out = ""
  let from = 0
  for (const edit of edits) {
    out += text.slice(from, edit.start) + edit.insert
    from = edit.end
  }
  return out + text.slice(from)
}

/** Where an offset of an earlier change moves through a later patch's edits (into a replaced range: its start). */
function mapOffset(offset: number, edits: readonly Edit[]): number {
  let shift = 0
  for (const edit of edits) {
    if (offset < edit.start) break
    if (offset < edit.end) return edit.start + shift
    shift += edit.insert.length - (edit.end - edit.start)
  }
  return offset + shift
}

/** The result ends with a line break exactly when the input did; an empty result stays empty. */
function keepFinalLineBreak(original: string, result: string): string {
  if (original === "" || result === "") return result
  const had = finalLineBreak(original)
  if (had !== "") return finalLineBreak(result) === "" ? result + had : result
  let out = result
  for (let cut = finalLineBreak(out); cut !== ""; cut = finalLineBreak(out)) out = out.slice(0, -cut.length)
  return out
}

/** "lines 3, 7, 12" (each line once, however many matches it holds), cut after a few. */
function listLines(text: string, starts: readonly number[]): string {
  const lines = [...new Set(linesOf(text, starts))]
  const shown = lines.slice(0, LIST_LINES).join(", ")
  const more = lines.length > LIST_LINES ? ` and ${lines.length - LIST_LINES} more` : ""
  return `line${lines.length === 1 ? "" : "s"} ${shown}${more}`
}

/** The text as a JSON string, cut to its first characters (whole code points) with "…" outside the quotes. */
function quote(text: string): string {
  const chars = Array.from(text)
  return chars.length <= QUOTE_CHARS ? JSON.stringify(text) : `${JSON.stringify(chars.slice(0, QUOTE_CHARS - 3).join(""))}…`
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.join(".")
      return field === "" || issue.message.startsWith(field) ? issue.message : `${field}: ${issue.message}`
    })
    .join("; ")
}
