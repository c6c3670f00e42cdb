// What the undo journal needs from the world: a store of entries and content-addressed blobs
// (adapters/storage/journal.repository.ts keeps them in the workspace database) and the files themselves, by
// absolute path. Time comes through the lifecycle's Clock port.

/** One journaled mutation of one file. Contents are named by their sha256 (lower-case hex); null: no file. */
export interface JournalEntry {
  /** Increasing: the journal's order. */
  id: number
  /** The root session the change belongs to. */
  session: string
  /** The assistant message of the tool call, when known. */
  message: string | null
  /** The user message that started the turn, when known. */
  turn: string | null
  /** The tool that made the change ("forge_write", "edit", "forge_undo", "forge_rewind", ...). */
  tool: string
  /** Absolute, real path of the file. */
  path: string
  /** The file's content before the change; null: it did not exist. */
  before: string | null
  /** The file's content after the change; null: it does not exist after. */
  after: string | null
  /** What `before` was: its type and permission bits (st_mode; see FileState); null: not recorded (a regular file). */
  beforeMode: number | null
  /** What `after` is, likewise. */
  afterMode: number | null
  /**
   * A change Forge saw but did not make (a shell command's, seen by comparing the file before and after it): it breaks
   * the proof undo and rewind need, and is never undone itself.
   */
  observed: boolean
  /** Milliseconds since the epoch. */
  at: number
  /** The standing entry (an undo or a rewind; a pruned one counts) that keeps this one reverted; null while it stands. */
  undoneBy: number | null
}

/** An entry to append: the store gives it its id. */
export type JournalEntryDraft = Omit<JournalEntry, "id" | "undoneBy">

/** The file type bits of st_mode, and the type of a symbolic link. */
export const MODE_TYPE = 0o170000
export const MODE_LINK = 0o120000

/**
 * What a path holds, itself (a link not followed): a regular file's bytes, or a symbolic link's target as bytes; and
 * its st_mode (type and permission bits), so a +x script and a link come back as they were.
 */
export interface FileState {
  bytes: Uint8Array
  mode: number
}

export const isLinkMode = (mode: number | null): boolean => mode !== null && (mode & MODE_TYPE) === MODE_LINK

/** File content under its sha256 (hex). */
export interface JournalBlob {
  hash: string
  bytes: Uint8Array
}

/** One entry to append, the blobs it names, and the entries it reverts. */
export interface JournalWrite {
  entry: JournalEntryDraft
  /** Stored once each (a hash already stored is skipped); every hash the entry names must be here or stored already. */
  blobs: readonly JournalBlob[]
  /**
   * Entries this one reverts that stand: each must still stand; one that does not (another process undid or pruned it
   * meanwhile) fails the whole append and nothing is written.
   */
  reverts?: readonly number[]
  /**
   * Entries this one reverts as well, standing or not: a rewind covers its whole range, so a change an undo inside the
   * range had taken back stays taken back when that undo is reverted.
   */
  covers?: readonly number[]
}

/**
 * The unit the journal is pruned by: a session's turn (every entry with that turn id), or one entry recorded outside
 * any turn (`turn` null). Ids and times are those of its first and last entries.
 */
export interface JournalTurn {
  session: string
  turn: string | null
  firstId: number
  lastId: number
  firstAt: number
  lastAt: number
  entries: number
}

/** What dropping turns removed, and the blob bytes left. */
export interface JournalPruned {
  entries: number
  blobs: number
  freedBytes: number
  totalBytes: number
}

export interface JournalListOptions {
  /** Leave out entries made by these tools. */
  excludeTools?: readonly string[]
  /** At most this many (the newest). */
  limit?: number
}

/** The journal's storage. Every call is atomic: a write that fails leaves the store as it was. */
export interface JournalStore {
  /** Stores content under its hash unless that hash is stored already. */
  putBlob(blob: JournalBlob): Promise<void>
  /** The stored content, or undefined when no blob has that hash. */
  readBlob(hash: string): Promise<Uint8Array | undefined>
  /**
   * Takes back an entry its caller just appended for a change that then failed: deletes it, and the blobs no other
   * entry or blob needs. Nothing reverts such an entry yet (it is the newest of its file, and its caller's alone).
   */
  retract(id: number): Promise<void>
  /** Appends the entries in order, with their blobs and reverts, in one transaction; returns them as stored. */
  append(writes: readonly JournalWrite[]): Promise<JournalEntry[]>
  /** The entries of a path that are not undone, newest first. */
  listByPath(path: string, options?: JournalListOptions): Promise<JournalEntry[]>
  /** Every entry of a session at or after `since` (ms), undone ones included, oldest first. */
  listBySession(session: string, since: number): Promise<JournalEntry[]>
  /** Every entry of a path, whoever made it, undone ones included, oldest first: the chain undo and rewind prove. */
  history(path: string): Promise<JournalEntry[]>
  /** The paths under `folder` (absolute) the journal has entries for, most recently changed first, at most `limit`. */
  paths(folder: string, limit: number): Promise<string[]>
  /** The total size of every stored blob. */
  blobBytes(): Promise<number>
  /** Every turn of the journal, oldest first (by first entry). */
  turns(): Promise<JournalTurn[]>
  /**
   * Deletes the turns' entries, then every blob no remaining entry names, in one transaction; and keeps, per session,
   * the time of its newest dropped entry (see `prunedUntil`).
   */
  dropTurns(turns: readonly JournalTurn[]): Promise<JournalPruned>
  /** The time of the session's newest change the journal dropped to stay within its bound; undefined: none. */
  prunedUntil(session: string): Promise<number | undefined>
}

/**
 * The files the journal restores, by absolute, real path. Every call resolves the path at that moment and throws when
 * it no longer is its own real path (a folder on its way was swapped for a link): the journal acts only on the file it
 * journaled, never on one a link leads it to.
 */
export interface JournalFiles {
  /** The file's bytes, or undefined when there is no file at `path`. Throws for a folder or an unreadable file. */
  read(path: string): Promise<Uint8Array | undefined>
  /** What the path itself holds (a link not followed), or undefined when nothing is there. Throws for a folder. */
  state(path: string): Promise<FileState | undefined>
  /**
   * Replaces (or creates) the file atomically (a temp file in the same folder, then a rename), creating parent folders.
   * `mode`: its permission bits (kept from the file replaced when absent); a link's mode makes a symbolic link to the
   * bytes' text instead.
   */
  write(path: string, bytes: Uint8Array, mode?: number | null): Promise<void>
  /** Removes the file (a link itself, not what it points to); a file already gone is no error. */
  remove(path: string): Promise<void>
}
