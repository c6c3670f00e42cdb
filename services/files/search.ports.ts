// What forge_search needs from the world: the files under a folder, already filtered (.gitignore, file_pattern),
// each read on demand. adapters/workspace/search.files.ts walks the real file system.

/** Why a file was not searched. */
export type SearchSkipReason = "binary" | "too-large" | "unreadable"

export type SearchFileRead =
  | { status: "text"; text: string }
  /** `bytes`: the file's size, when known (a too-large file always says it). */
  | { status: "skipped"; reason: SearchSkipReason; bytes?: number }

export interface SearchEntry {
  /** Relative to the searched folder, "/"-separated ("src/a.ts"); a folder that could not be listed ends in "/". */
  path: string
  /** The file's text, or why it is skipped. Never throws: a failure is `unreadable`. */
  read(): Promise<SearchFileRead>
}

export interface SearchScope {
  /** The folder to search (absolute); a file is searched alone. */
  root: string
  /** A glob the file's relative path or its name must match; all files when absent. */
  filePattern?: string
}

export interface SearchFiles {
  /**
   * Every entry to search, in a stable order (by path). Throws, naming it, when `root` does not exist or cannot be
   * read, and when `filePattern` is no valid glob.
   */
  entries(scope: SearchScope): AsyncIterable<SearchEntry>
}

/** A matching line: its 0-based index in the file and where its first match starts. */
export interface LineHit {
  line: number
  index: number
}

/** `scope`: whether the file's own budget ran out, or the budget of the whole search (many slow files add up). */
export type LinesMatched = { status: "matched"; hits: LineHit[] } | { status: "timed-out"; budgetMs: number; scope: "file" | "search" }

/**
 * Tests a file's lines against the search regex. The adapter runs it off opencode's event loop with a time budget
 * per file and one for the whole search, so a regex that backtracks without end costs one stopped search, never a
 * frozen host or a call that does not come back.
 */
export interface LineMatcher {
  match(lines: readonly string[]): Promise<LinesMatched>
  close(): void
}

/** Makes the matcher of one search for its regex (`source` and `flags` as the search read them). */
export type LineMatcherFactory = (regex: { source: string; flags: string }) => LineMatcher
