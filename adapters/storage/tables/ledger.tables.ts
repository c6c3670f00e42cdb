// Every named ledger (job, watchdog, ...) in one bounded, append-only table: the repository keeps the newest rows
// of each ledger only.
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core"

/** One ledger entry; the autoincrement id gives the order, rotation deletes a ledger's lowest ids. */
export const ledgerEntries = sqliteTable(
  "ledger_entries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ledger: text("ledger").notNull(),
    kind: text("kind").notNull(),
    sessionId: text("session_id"),
    subject: text("subject"),
    at: integer("at").notNull(),
    // The whole entry as JSON text, decoded by the repository so a bad value is reported with the row's id.
    entry: text("entry").notNull(),
  },
  (table) => [
    index("ledger_entries_ledger_idx").on(table.ledger, table.id),
    index("ledger_entries_session_idx").on(table.ledger, table.sessionId),
    index("ledger_entries_subject_idx").on(table.ledger, table.subject),
  ],
)
