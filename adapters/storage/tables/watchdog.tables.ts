// The watchdog's intervention ledger: bounded (the repository keeps the newest entries only), append-only.
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core"

/** One watchdog intervention; the autoincrement id gives the order, rotation deletes the lowest ids. */
export const watchdogLedger = sqliteTable("watchdog_ledger", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  at: integer("at").notNull(),
  kind: text("kind").notNull(),
  callId: text("call_id"),
  sessionId: text("session_id"),
  command: text("command"),
  // JSON array of pids, decoded by the repository so a bad value fails with the entry's id in the error.
  pids: text("pids").notNull(),
  message: text("message").notNull(),
})
