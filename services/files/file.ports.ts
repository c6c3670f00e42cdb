import type { JournalFiles } from "./journal.ports"

// What the forge file tools need of the world beyond the journal's reads and writes.

/** What a path names on disk (symbolic links followed). */
export type PathKind = "file" | "folder" | "missing" | "other"

/**
 * A path's kind and, for a file, its size in bytes and its st_mode (0 otherwise): enough to refuse a file before
 * reading it, and to journal its mode without asking again.
 */
export interface PathStat {
  kind: PathKind
  size: number
  mode: number
}

export interface ToolFiles extends JournalFiles {
  stat(path: string): Promise<PathStat>
  /**
   * A cheap fingerprint of what the path itself holds (type, mode, size, times, inode; "missing" when nothing): equal
   * fingerprints mean unchanged, so only a file whose fingerprint moved is read and hashed.
   */
  signature(path: string): Promise<string>
}
