// Tables of the lifecycle runtime: the latest snapshot of every actor and the transition log they share.
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core"

/** Latest persisted snapshot of each lifecycle instance (one row per machine id + instance id). */
export const actors = sqliteTable(
  "actors",
  {
    machineId: text("machine_id").notNull(),
    instanceId: text("instance_id").notNull(),
    machineVersion: text("machine_version").notNull(),
    sessionId: text("session_id"),
    state: text("state").notNull(),
    terminal: integer("terminal", { mode: "boolean" }).notNull(),
    // JSON text, encoded and decoded by the repository so a bad value fails with the actor's name in the error.
    snapshot: text("snapshot").notNull(),
    document: text("document"),
    updatedAt: integer("updated_at").notNull(),
    // Bumped by every write of the row: a step decided on an older revision is never committed over a newer one.
    revision: integer("revision").notNull().default(0),
    // Workspace-wide order of writes (max + 1 at each write), so a process reloads only the rows changed since it last looked.
    seq: integer("seq").notNull().default(0),
    // What may be held by one live instance at a time (e.g. a session's one live plan); unique, NULL for none.
    exclusiveKey: text("exclusive_key"),
  },
  (table) => [
    primaryKey({ columns: [table.machineId, table.instanceId] }),
    index("actors_session_id_idx").on(table.sessionId),
    index("actors_seq_idx").on(table.seq),
    uniqueIndex("actors_exclusive_key_idx").on(table.exclusiveKey),
  ],
)

/** Append-only transition log of every lifecycle; the autoincrement id gives the insertion order. */
export const transitions = sqliteTable(
  "transitions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    machineId: text("machine_id").notNull(),
    instanceId: text("instance_id").notNull(),
    sessionId: text("session_id"),
    fromState: text("from_state").notNull(),
    event: text("event").notNull(),
    toState: text("to_state").notNull(),
    at: integer("at").notNull(),
  },
  (table) => [index("transitions_instance_idx").on(table.machineId, table.instanceId), index("transitions_session_id_idx").on(table.sessionId)],
)
