// Windowed reads: what a read tool returns for a document too long for one answer, like opencode's own Read.

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
  const window = lines.slice(offset - 1, offset - 1 + limit)
  const last = offset + window.length - 1
  const out = window.map((line, i) => `${offset + i}: ${line}`).join("\n")
  if (last >= lines.length) return out
  return `${out}\n\n(Showing lines ${offset}-${last} of ${lines.length}. Use offset=${last + 1} to read more.)`
}
