import type * as z from "zod"
import { PATCH_LIMITS, type Patch, type PatchOperation, patchSchema } from "./patch.schema"
import { Draft, type Edit } from "./patch.draft"
import { SearchText, findExact, findIgnoringSpace } from "./patch.search"
import { finalLineBreak, linesOf, withLineBreaks } from "./text.eol"

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
  /** The new text's bytes, when the call was given the text's as ASCII and every patch brought ASCII only. */
  bytes?: Buffer
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

interface Planned {
  edits: Edit[]
  /** Where the change starts in the text after the patch (a swap has two places). */
  landed: number[]
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
 * is refused: nothing would change. `ascii`: the text's bytes, when every character of it is ASCII (one byte each).
 */
export function applyPatches(text: string, patches: readonly Patch[], ascii?: Uint8Array): PatchResult {
  if (patches.length === 0) throw new PatchError([], 0)
  if (patches.length > PATCH_LIMITS.patches) {
    throw new PatchError(
      [],
      patches.length,
      `patches holds ${patches.length} patches, over the limit of ${PATCH_LIMITS.patches} per call: split the change into several calls`,
    )
  }
  if (patches.length * text.length > PATCH_LIMITS.searchedChars) {
    const most = Math.max(1, Math.floor(PATCH_LIMITS.searchedChars / Math.max(1, text.length)))
    throw new PatchError(
      [],
      patches.length,
      `${patches.length} patches on a text of ${number(text.length)} characters would search ${number(patches.length * text.length)} characters, over the limit of ${number(PATCH_LIMITS.searchedChars)} per call (patches × text length): give at most ${most} patch${most === 1 ? "" : "es"} per call on this file`,
    )
  }
  const original = new SearchText(text)
  const newline = original.eol.newline
  const problems: PatchProblem[] = []
  const tracked: { index: number; op: PatchOperation; offsets: number[] }[] = []
  const input = Draft.of(text, ascii)
  let current = input
  // The text each patch searches, with its derived forms made once for all the patches that search it.
  let view: SearchText | undefined = original
  patches.forEach((raw, i) => {
    const index = i + 1
    // The engine's own line: a caller that skipped the schema (or built a patch by hand) still gets a clear refusal.
    const parsed = patchSchema.safeParse(raw)
    if (!parsed.success) {
      problems.push({ index, message: describeIssues(parsed.error) })
      return
    }
    view ??= new SearchText(current.text)
    const planned = planPatch(view, parsed.data, newline, original)
    if (typeof planned === "string") {
      problems.push({ index, message: planned })
      return
    }
    current = current.edited(planned.edits)
    view = undefined
    for (const change of tracked) change.offsets = change.offsets.map((offset) => mapOffset(offset, planned.edits))
    tracked.push({ index, op: parsed.data.operation, offsets: planned.landed })
  })
  if (problems.length > 0) throw new PatchError(problems, patches.length)
  const fix = finalBreakEdit(text, current)
  if (fix !== undefined) current = current.edited([fix])
  // Each patch changed something, yet together they may not (one undoes another, or only the final line break moved):
  // saying "patched" then would be false.
  if (current.same(input)) throw new PatchError([], patches.length, NO_CHANGE_MESSAGE)
  const end = current.length
  const lines = current.lines(tracked.flatMap((change) => change.offsets.map((offset) => Math.min(offset, end))))
  let next = 0
  const changes = tracked.map(({ index, op, offsets }): PatchChange => {
    const [line = 1, otherLine] = offsets.map(() => lines[next++] ?? 1)
    return otherLine === undefined ? { index, op, line } : { index, op, line, otherLine }
  })
  const result = current
  // With bytes, the text is read from them only if asked for.
  if (result.bytes === undefined) return { text: result.text, changes }
  return {
    get text() {
      return result.text
    },
    changes,
    bytes: result.bytes,
  }
}

/** The edits one patch makes to `view`'s text, or why it cannot. `original` is the call's input, for a hint. */
function planPatch(view: SearchText, patch: Patch, newline: "\n" | "\r\n" | undefined, original: SearchText): Planned | string {
  if (patch.operation === "swap") return planSwap(view, patch, original)
  const text = view.text
  const at = locate(view, patch.search, patch.occurrence, "search", "occurrence", original)
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

function planSwap(view: SearchText, patch: Extract<Patch, { operation: "swap" }>, original: SearchText): Planned | string {
  if (patch.search === patch.with) return "search and with are the same text: swapping them would change nothing"
  const text = view.text
  const a = locate(view, patch.search, patch.occurrence, "search", "occurrence", original)
  const b = locate(view, patch.with, patch.with_occurrence, "with", "with_occurrence", original)
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
  view: SearchText,
  needle: string,
  occurrence: number | undefined,
  field: "search" | "with",
  occurrenceField: "occurrence" | "with_occurrence",
  original: SearchText,
): { start: number; end: number } | string {
  const text = view.text
  const found = findExact(view, needle, PATCH_LIMITS.matches)
  const count = found.starts.length
  const name = `${field} ${quote(needle)}`
  const times = found.more ? `more than ${number(count)} times` : count === 1 ? "once" : `${count} times`
  if (count === 0) return `${name} was not found${missingHint(view, needle, original)}`
  if (occurrence === undefined && count > 1) {
    return `${name} occurs ${times} (${listLines(text, found.starts)}): say which with ${occurrenceField} (1 to ${number(count)})`
  }
  const chosen = (occurrence ?? 1) - 1
  const start = found.starts[chosen]
  const end = found.ends[chosen]
  if (start === undefined || end === undefined) return `${occurrenceField} ${occurrence} asked, but ${name} occurs ${times} (${listLines(text, found.starts)})`
  return { start, end }
}

/** Why a missing text may be missing; never applied, only said. */
function missingHint(view: SearchText, needle: string, original: SearchText): string {
  const text = view.text
  if (text === "") return ": the file is empty, so there is no text to match. Write it with forge_write"
  if (view !== original && findExact(original, needle, 1).starts.length > 0) {
    return ": it was in the text before an earlier patch of this call changed it (each patch applies to the result of the ones before it)"
  }
  // Whitespace (line endings included) may differ anywhere, even where the needle has none.
  const starts = findIgnoringSpace(view, needle, PATCH_LIMITS.matches)
  if (starts.length === 0) return ""
  const places =
    starts.length > PATCH_LIMITS.matches ? `more than ${number(PATCH_LIMITS.matches)} times` : starts.length === 1 ? "once" : `${starts.length} times`
  return (
    `; ignoring whitespace and line endings it would match ${places} (${listLines(text, starts.slice(0, PATCH_LIMITS.matches))}), ` +
    "but patches match exactly: copy the text as the file has it, spaces, tabs and line breaks included"
  )
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

/** The edit that makes the result end with a line break exactly when the input did; an empty result stays empty. */
function finalBreakEdit(original: string, result: Draft): Edit | undefined {
  const length = result.length
  if (original === "" || length === 0) return undefined
  // The line break ending the text up to `end`: 2 for "\r\n", 1 for "\n", 0 for none.
  const breakBefore = (end: number): number => (result.codeAt(end - 1) !== 10 ? 0 : result.codeAt(end - 2) === 13 ? 2 : 1)
  const had = finalLineBreak(original)
  if (had !== "") return breakBefore(length) === 0 ? { start: length, end: length, insert: had } : undefined
  let end = length
  for (let cut = breakBefore(end); cut > 0; cut = breakBefore(end)) end -= cut
  return end === length ? undefined : { start: end, end: length, insert: "" }
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
  // Only the start is shown: a 10 MB text is not split into characters to show sixty of them.
  const chars = Array.from(text.slice(0, QUOTE_CHARS * 2 + 2))
  return chars.length <= QUOTE_CHARS && text.length <= QUOTE_CHARS * 2 ? JSON.stringify(text) : `${JSON.stringify(chars.slice(0, QUOTE_CHARS - 3).join(""))}…`
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.join(".")
      return field === "" || issue.message.startsWith(field) ? issue.message : `${field}: ${issue.message}`
    })
    .join("; ")
}

const number = (n: number): string => n.toLocaleString("en-US")
