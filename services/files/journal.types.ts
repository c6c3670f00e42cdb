// What the undo journal's callers give it and get back (who makes a change, the change to record or to observe, and
// the reports of an undo, a rewind and a prune), and the steps of a rewind it plans.
import type { RestoreAction } from "./journal.content"
import type { FileState, JournalEntry, JournalTurn } from "./journal.ports"

/** Who makes a change: the root session, and when known the assistant message and the user turn. */
export interface JournalActor {
  session: string
  message?: string
  turn?: string
}

export interface RecordInput extends JournalActor {
  tool: string
  /** Absolute, real path. */
  path: string
  /** The content before the change; undefined: the file did not exist. */
  before: Uint8Array | undefined
  /** The content after the change; undefined: the file does not exist after it. */
  after: Uint8Array | undefined
  /** The file's st_mode before and after (type and permission bits), when known: undo and rewind bring them back. */
  beforeMode?: number
  afterMode?: number
}

export interface ObserveInput extends JournalActor {
  /** The tool Forge saw change the file (the shell tool that ran the command). */
  tool: string
  /** Absolute, real path. */
  path: string
  /** What the path holds now; undefined: nothing. */
  now: FileState | undefined
}

export interface UndoResult {
  path: string
  action: RestoreAction
  /** The change that was reverted (now marked undone). */
  reverted: JournalEntry
  /** The undo's own entry. */
  entry: JournalEntry
}

export interface RewindInput extends JournalActor {
  /** Epoch ms of the user turn: every change the session made at or after it is rewound. */
  since: number
  /** Overwrite files somebody else changed since (reported conflicts otherwise). */
  force?: boolean
  /** Plan only: the report says what the rewind would do (`restored`: the files it would write), nothing is written. */
  preview?: boolean
  /** The fingerprint of the preview the user allowed: the rewind writes only while its plan is still that one. */
  expect?: string
}

export interface RewoundPath {
  path: string
  action: RestoreAction
  /** The file's size before the rewind writes it (null: no file). */
  bytesNow: number | null
  /** Its size after (null: the rewind removes it). */
  bytesAfter: number | null
  /** With `force`: the conflict this restoration overrode. */
  overrode?: string
}

export interface RewindConflict {
  path: string
  why: string
  /** The file's size now (null: no file, or it cannot be read). */
  bytes: number | null
}

export interface RewindReport {
  restored: RewoundPath[]
  /** Files the session touched that already hold their content from before the turn: nothing to write. */
  unchanged: string[]
  /** Files left alone because somebody else changed them since (only without `force`). */
  conflicts: RewindConflict[]
  /**
   * When the journal had dropped changes of this session made since the turn (to stay within its bound): the time of
   * the newest one. Those changes, and files only they touched, were not rewound.
   */
  prunedUntil?: number
  /** What the plan does, as a short hash (journal.rewind.ts): a preview's is handed back as `expect`. */
  fingerprint: string
}

export interface PruneReport {
  limitBytes: number
  /** Blob bytes after pruning (over the limit only when the newest turn alone is). */
  totalBytes: number
  dropped: JournalTurn[]
  droppedEntries: number
  freedBytes: number
}

/** A file as it was before a restoration that has to be taken back. */
export interface PutBack {
  path: string
  content: Uint8Array | undefined
  mode: number | null
}

/** One file a rewind will restore: its content now and the content to put back. */
export interface RewindStep {
  path: string
  current: Uint8Array | undefined
  currentHash: string | null
  currentMode: number | null
  target: Uint8Array | undefined
  targetHash: string | null
  targetMode: number | null
  /** The range's entries that stand: each must still stand when the rewind is journaled. */
  reverts: number[]
  /** The range's entries already taken back (by an undo inside it): reverted too, unchecked. */
  covers: number[]
  overrode?: string
}
