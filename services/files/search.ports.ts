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

/** One search, as a scanner runs it: where, the regex as read, and how many matching lines' text it must keep. */
export interface ScanRequest extends SearchScope {
  /** As read by readSearchRegex (search.regex.ts); `text` as the model wrote it, for a compile error. */
  regex: { source: string; flags: string; text: string }
  /** Matching lines whose text the answer may show, first in walk order; the rest are only counted. */
  maxShown: number
  /** Characters kept of one shown line, a window around its match (lineWindow in search.tally.ts). */
  maxLineChars: number
}

/** A matching line to show: its 0-based number, and its text or a window of it. */
export interface ShownHit {
  line: number
  text: string
}

/** `order`: the file's place in the walk, so results scanned in parallel are told in the walk's order. */
export interface ScannedFile {
  order: number
  path: string
  /** Matching lines in the file; `shown` holds the first of them, within the request's maxShown. */
  matches: number
  shown: ShownHit[]
}

export interface ScannedSkip {
  order: number
  path: string
  reason: SearchSkipReason
  bytes?: number
}

/** What a scan left undecided when a limit stopped it: the search's answer must say so, never "No matches". */
export interface ScanUndecided {
  /** The limit, in its own words ("the search's time limit of 60 s"). */
  limit: string
  /** Files the walk found that were not read, and lines read but not tested; undefined when nobody could count them. */
  files?: number
  lines?: number
}

export interface ScanResult {
  /** Files read and tested in full. */
  searched: number
  /** Files with at least one matching line. */
  files: ScannedFile[]
  skipped: ScannedSkip[]
  undecided?: ScanUndecided
}

/**
 * Walks, reads and matches one search. The plugin's scanner (adapters/process/search.scanner.ts) does all of it in
 * worker threads, so nothing whose cost the model controls runs on opencode's event loop. Throws, naming it, when
 * the folder does not exist or cannot be read.
 */
export interface SearchScanner {
  scan(request: ScanRequest): Promise<ScanResult>
}
