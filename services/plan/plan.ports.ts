// What the plan service needs from the world; adapters/workspace and adapters/opencode provide it. The ports every
// lifecycle shares (Logger, Clock, Confirm) live in the lifecycle kernel, the document files port in services/documents.

import type { DocumentFiles } from "../documents/document.ports"

/** The plan folder of one workspace: the document files of `.opencode/plan/`, e.g. ".opencode/plan/2026-11-30-x.md". */
export type PlanFiles = DocumentFiles

/** How a regex search over lines ended. Line indexes are 0-based into the lines searched. */
export type LineSearchResult =
  | { status: "searched"; matches: number[] }
  | { status: "invalid"; reason: string }
  /** The time budget ran out at line `line` (of one line, or of the whole search) and the search was abandoned. */
  | { status: "timed-out"; budgetMs: number; line: number; scope: "line" | "search" }

/**
 * Runs a caller's regex (JavaScript syntax, no flags) over lines, each line tested on its own, off the host's
 * thread and within a time budget: a pattern such as (a+)+$ can backtrack for minutes on one line.
 */
export interface LineSearch {
  matchingLines(pattern: string, lines: readonly string[]): Promise<LineSearchResult>
}
