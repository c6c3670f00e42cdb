// What a document lifecycle needs from the world to keep its documents; adapters/workspace provides it.

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
  /** Replaces the whole file atomically (temp file + rename): readers see the old text or the new, never a mix. */
  write(path: string, text: string): Promise<void>
}
