// plan_edit's exact replacement, the model's Edit with the stored plan as the implicit target. (plan_read's window is
// the documents' readWindow.)

import { lineAt, lineStarts, splitLines } from "../documents/markdown.scan"
import { PlanInputError } from "./plan.errors"

/** `readWindow`'s line prefix (services/documents/document.window.ts): the line number, a colon and one space. */
const LINE_PREFIX = /^\d+: /

export interface Replacement {
  text: string
  count: number
  /** 1-based inclusive line range of the replaced text in the new text (first through last replacement). */
  touched: [number, number]
}

/** Every start of `needle` in `text`, non-overlapping. Each step moves forward by at least one character. */
function occurrences(text: string, needle: string): number[] {
  // indexOf coerces a non-string needle ("40" for 40) while its .length is undefined: the search would restart at 0
  // forever. An empty needle would never move either. Both are refused here, whatever the caller checked.
  if (typeof needle !== "string" || needle === "") throw new PlanInputError("the text to find must be a non-empty string")
  const found: number[] = []
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) found.push(at)
  return found
}

function requireString(name: string, value: unknown): void {
  if (typeof value !== "string") throw new PlanInputError(`${name} must be a string (got ${value === null ? "null" : typeof value})`)
}

const times = (n: number): string => `${n} time${n === 1 ? "" : "s"}`

/**
 * Replaces `oldString` exactly (no regex, no `$` patterns). It must occur once unless `replaceAll`. An empty
 * `oldString` is accepted only on an empty text, where it creates the text.
 */
export function replaceExact(text: string, oldString: string, newString: string, replaceAll = false): Replacement {
  // The tools parse their args, but this is the service's own line: a caller that skipped the parse gets an error.
  requireString("oldString", oldString)
  requireString("newString", newString)
  if (oldString === newString) {
    throw new PlanInputError("oldString and newString are identical: the edit would change nothing")
  }
  if (oldString === "") {
    if (text !== "") {
      throw new PlanInputError("oldString is empty: an empty oldString only creates a plan that does not exist yet")
    }
    return { text: newString, count: 1, touched: [1, Math.max(1, splitLines(newString).length)] }
  }
  const found = occurrences(text, oldString)
  if (found.length === 0) {
    const prefixed = oldString.split("\n").filter((line) => LINE_PREFIX.test(line)).length
    if (prefixed > 0) {
      const stripped = oldString
        .split("\n")
        .map((line) => line.replace(LINE_PREFIX, ""))
        .join("\n")
      throw new PlanInputError(
        `oldString was found 0 times. It carries plan_read line-number prefixes ("N: ") on ${prefixed} line(s); ` +
          `they are not part of the plan. Remove them (without them it matches ${times(stripped === "" ? 0 : occurrences(text, stripped).length)}).`,
      )
    }
    throw new PlanInputError(
      "oldString was found 0 times in the plan. It must match exactly, including whitespace and indentation; " +
        "read the plan again and copy the text without line-number prefixes.",
    )
  }
  if (found.length > 1 && !replaceAll) {
    throw new PlanInputError(
      `oldString was found ${times(found.length)}. Include more surrounding text to make it unique, or set replaceAll to replace every occurrence.`,
    )
  }
  const targets = replaceAll ? found : found.slice(0, 1)
  let out = ""
  let cursor = 0
  const newOffsets: number[] = []
  for (const at of targets) {
    out += text.slice(cursor, at)
    newOffsets.push(out.length)
    out += newString
    cursor = at + oldString.length
  }
  out += text.slice(cursor)
  // A deletion at the very end sits past the last line: clamp into the text.
  const starts = lineStarts(out)
  const lineCount = Math.max(1, splitLines(out).length)
  const lineOf = (offset: number): number => Math.min(lineAt(starts, offset), lineCount)
  const first = lineOf(newOffsets[0] ?? 0)
  const last = lineOf((newOffsets[newOffsets.length - 1] ?? 0) + Math.max(newString.length - 1, 0))
  return { text: out, count: targets.length, touched: [first, Math.max(first, last)] }
}
