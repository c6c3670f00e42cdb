import type { JournalFiles } from "./journal.ports"

// What the forge file tools need of the world beyond the journal's reads and writes.

/** What a path names on disk (symbolic links followed). */
export type PathKind = "file" | "folder" | "missing" | "other"

export interface ToolFiles extends JournalFiles {
  kind(path: string): Promise<PathKind>
}
