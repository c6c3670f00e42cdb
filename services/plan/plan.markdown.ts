// The plan's two marker comments; the markdown scanning itself is shared by every document kind
// (services/documents/markdown.scan.ts).

import { isMarkerLine } from "../documents/markdown.scan"

/** Precedes each `## Phase N: Title` heading. */
export const SECTION_MARKER = "<!-- forge-section -->"
/** Everything after the first line holding only this marker is inert to the parser. */
export const NARRATIVE_MARKER = "<!-- forge-narrative -->"

/** 0-based index of the narrative marker line, or -1. */
export function findNarrative(lines: readonly string[]): number {
  return lines.findIndex((line) => isMarkerLine(line, NARRATIVE_MARKER))
}
