// What a document lifecycle needs from the world to keep and search its documents; adapters/workspace and
// adapters/process provide it.

/**
 * One folder of documents in a workspace (the plan folder, the goal folder, ...). Paths are workspace-relative,
 * e.g. ".opencode/plan/2026-11-30-x.md"; a path outside the folder, or one whose real path leaves the workspace, is
 * refused with an error that names it.
 */
export interface DocumentFiles {
  /** Every document path of the folder, in no particular order. */
  list(): Promise<string[]>
  /** The document text, or undefined when the file does not exist. */
  read(path: string): Promise<string | undefined>
  /**
   * A cheap change stamp of the document (identity, size, modification times) taken without reading it; equal
   * stamps mean the text was not replaced or rewritten since. Undefined when the file cannot be stat-ed.
   * Synchronous on purpose: a gate may ask it on every tool call.
   */
  stamp(path: string): string | undefined
  /** When the document's text last changed (epoch ms), without reading it; undefined when the file cannot be stat-ed. */
  modifiedAt(path: string): number | undefined
  /**
   * Replaces the whole file atomically (temp file + rename): readers see the old text or the new, never a mix. With
   * `unchangedSince` (a `stamp` taken before the text was read), the write is a compare-and-swap: it throws
   * `DocumentChangedError` and leaves the file alone when the stamp is no longer that just before the rename.
   */
  write(path: string, text: string, unchangedSince?: string): Promise<void>
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
