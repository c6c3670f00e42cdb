// Windowed reads: what a read tool returns for a document too long for one answer, like opencode's own Read.

import { cutIndex } from "../files/text.cut"
import { DocumentInputError } from "./document.errors"
import { splitLines } from "./markdown.scan"

export const DEFAULT_READ_LIMIT = 2000

export interface ReadWindowOptions {
  /** 1-based first line; default 1. */
  offset?: number
  /** Maximum number of lines; default 2000. */
  limit?: number
  /** What the text is, for errors ("offset 4 is past the end of the plan"); default "document". */
  what?: string
  /** A line longer than this is cut, with a note of its length (a minified file is one huge line); default: none. */
  maxLineChars?: number
  /** The window ends early once its lines hold this many characters (one line at least); default: none. */
  maxChars?: number
}

/**
 * Lines `offset..offset+limit-1`, each prefixed "N: ". When the window stops before the last line, a notice names
 * the lines returned and the offset that continues. An empty text reads as "" at offset 1.
 */
export function readWindow(text: string, options: ReadWindowOptions = {}): string {
  const offset = options.offset ?? 1
  const limit = options.limit ?? DEFAULT_READ_LIMIT
  if (!Number.isInteger(offset) || offset < 1) {
    throw new DocumentInputError(`offset must be a whole number from 1 (got ${offset})`)
  }
  if (!Number.isInteger(limit) || limit < 1) {
    throw new DocumentInputError(`limit must be a whole number from 1 (got ${limit})`)
  }
  const lines = splitLines(text)
  if (lines.length === 0 && offset === 1) return ""
  if (offset > lines.length) {
    throw new DocumentInputError(
      `offset ${offset} is past the end of the ${options.what ?? "document"}: it has ${lines.length} line${lines.length === 1 ? "" : "s"}`,
    )
  }
  const shown: string[] = []
  let chars = 0
  for (const line of lines.slice(offset - 1, offset - 1 + limit)) {
    const text = `${offset + shown.length}: ${cutLine(line, options.maxLineChars)}`
    if (shown.length > 0 && options.maxChars !== undefined && chars + text.length > options.maxChars) break
    shown.push(text)
    chars += text.length + 1
  }
  const last = offset + shown.length - 1
  const out = shown.join("\n")
  if (last >= lines.length) return out
  return `${out}\n\n(Showing lines ${offset}-${last} of ${lines.length}. Use offset=${last + 1} to read more.)`
}

function cutLine(line: string, max: number | undefined): string {
  if (max === undefined || line.length <= max) return line
  return `${line.slice(0, cutIndex(line, max))} … (line cut: ${line.length.toLocaleString("en-US")} characters in all)`
}
