// What the plan service needs from the world; adapters/workspace and adapters/opencode provide it. The ports every
// lifecycle shares (Logger, Clock, Confirm) live in the lifecycle kernel.

/** The plan folder of one workspace. Paths are workspace-relative, e.g. ".opencode/plan/2026-11-30-x.md". */
export interface PlanFiles {
  /** Every plan document path, in no particular order. */
  list(): Promise<string[]>
  /** The document text, or undefined when the file does not exist. */
  read(path: string): Promise<string | undefined>
  /**
   * A cheap change stamp of the document (identity, size, modification times) taken without reading it; equal
   * stamps mean the text was not replaced or rewritten since. Undefined when the file cannot be stat-ed.
   * Synchronous on purpose: the gate asks it on every tool call of a session with a live plan.
   */
  stamp(path: string): string | undefined
  /** Replaces the whole file atomically (temp file + rename): readers see the old text or the new, never a mix. */
  write(path: string, text: string): Promise<void>
}

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
