// The undo journal of the forge file tools: every file mutation as one row, the file contents it names stored once
// each in a content-addressed blob table (a large file edited many times stores each version once).
import { blob, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core"

/**
 * File contents by their hash: written once (INSERT OR IGNORE), removed when no journal entry names them and no kept
 * blob is a delta against them. A small edit of a large file is stored as a delta against the version before it.
 */
export const fileBlobs = sqliteTable(
  "file_blobs",
  {
    /** The journal's hash of the content (sha256, lower-case hex; see journal.content's stateHash). */
    hash: text("hash").primaryKey(),
    /** The content as stored: see `encoding` (adapters/storage/journal.blobs.ts). */
    bytes: blob("bytes", { mode: "buffer" }).notNull(),
    /** Length of `bytes` (as stored): what the journal's size limit counts. */
    size: integer("size").notNull(),
    /** 0: the content itself; 1: deflated; 3: brotli; 2 and 4: a delta against the blob `base` (journal.blobs.ts). */
    encoding: integer("encoding").notNull().default(0),
    /** For a delta: the blob it applies to (kept while this one is). */
    base: text("base"),
    /** Deltas to apply to read it: 0 for a whole blob, its base's depth + 1 for a delta (bounded, so reads stay short). */
    depth: integer("depth").notNull().default(0),
  },
  // The bound's total is asked after every change: summed from this index, it never reads the blobs' pages
  // (without it, ~0.5 ms per MiB of journal).
  (table) => [index("file_blobs_size_idx").on(table.size)],
)

/** One mutation of one file; the autoincrement id gives the order. */
export const fileJournal = sqliteTable(
  "file_journal",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** The root session the change belongs to. */
    sessionId: text("session_id").notNull(),
    /** The assistant message of the tool call, when known. */
    messageId: text("message_id"),
    /** The user message that started the turn, when known. */
    turnId: text("turn_id"),
    tool: text("tool").notNull(),
    /** Absolute, real path of the file. */
    path: text("path").notNull(),
    /** The file's content before the change (a file_blobs hash); NULL: the file did not exist. */
    beforeHash: text("before_hash"),
    /** The file's content after the change; NULL: the file does not exist after it. */
    afterHash: text("after_hash"),
    /** st_mode (type and permission bits) of the content before; NULL: not recorded (a regular file). */
    beforeMode: integer("before_mode"),
    /** st_mode of the content after; a symbolic link's content is its target. */
    afterMode: integer("after_mode"),
    /** A change Forge saw (a shell command's) but did not make: it breaks the proof undo and rewind need. */
    observed: integer("observed", { mode: "boolean" }).notNull().default(false),
    /** Milliseconds since the epoch. */
    at: integer("at").notNull(),
  },
  (table) => [index("file_journal_path_idx").on(table.path, table.id), index("file_journal_session_idx").on(table.sessionId, table.at)],
)

/**
 * Which entry reverted which: an undo reverts one entry, a rewind every entry of its range. What stands is decided
 * from these (services/files/journal.standing.ts): an entry stands unless a standing entry reverts it.
 */
export const fileReverts = sqliteTable(
  "file_reverts",
  {
    reverterId: integer("reverter_id").notNull(),
    revertedId: integer("reverted_id").notNull(),
  },
  (table) => [primaryKey({ columns: [table.reverterId, table.revertedId] }), index("file_reverts_reverted_idx").on(table.revertedId)],
)
