// Locating the frontmatter between the two `---` lines, without reading it: every document kind starts this way.

import { DocumentError } from "./document.errors"

/** Where the frontmatter sits in a document. Offsets are 0-based into the text, lines 1-based. */
export interface FrontmatterBlock {
  /** The YAML between the delimiter lines (ends with a line terminator unless empty). */
  yaml: string
  /** Offset where the YAML starts (just after the opening `---` line). */
  yamlStart: number
  /** Offset of the closing `---` line. */
  closeStart: number
  /** Line number of the closing `---` line: the number of lines before the body. */
  closeLine: number
  /** Everything after the closing delimiter line. */
  body: string
  /** The line terminator the opening line uses, reused for lines the codec writes. */
  eol: "\n" | "\r\n"
}

const DELIMITER = /^---[ \t]*\r?$/

/** Whether a text (leading blank lines and a BOM aside) opens with a whole `---` … `---` block. */
export function startsWithFrontmatter(text: string): boolean {
  const trimmed = text.replace(/^\uFEFF/, "").replace(/^(?:[ \t]*\r?\n)+/, "")
  try {
    splitFrontmatter(trimmed, "")
    return true
  } catch {
    return false
  }
}

/** Locates the frontmatter. Throws DocumentError when it is missing or never closed. */
export function splitFrontmatter(text: string, source: string): FrontmatterBlock {
  const firstEnd = text.indexOf("\n")
  const first = firstEnd === -1 ? text : text.slice(0, firstEnd)
  if (!DELIMITER.test(first)) {
    throw new DocumentError(source, `missing frontmatter: the document must start with a "---" line`, 1)
  }
  const eol = first.endsWith("\r") ? "\r\n" : "\n"
  const yamlStart = firstEnd === -1 ? text.length : firstEnd + 1
  let line = 2
  for (let start = yamlStart; start < text.length; line++) {
    const end = text.indexOf("\n", start)
    const current = end === -1 ? text.slice(start) : text.slice(start, end)
    if (DELIMITER.test(current)) {
      const bodyStart = end === -1 ? text.length : end + 1
      return {
        yaml: text.slice(yamlStart, start),
        yamlStart,
        closeStart: start,
        closeLine: line,
        body: text.slice(bodyStart),
        eol,
      }
    }
    if (end === -1) break
    start = end + 1
  }
  throw new DocumentError(source, `unterminated frontmatter: no closing "---" line after the opening one`, 1)
}
