// The undo journal over the real SQLite store (the workspace database's connection) and real files, driver-agnostic:
// run under Node (sqlite3) by journal.store.test.ts and under opencode's Bun (bun:sqlite) by journal.bun.ts. Each
// check gets a fresh folder it may fill; the caller removes it. The checks live in one module per concern.
import { journalBlobChecks } from "./journal.blobs.checks"
import { journalDurabilityChecks } from "./journal.durability.checks"
import { journalUndoChecks } from "./journal.undo.checks"

/** Every journal check, by name. */
export const journalChecks: Record<string, (dir: string) => Promise<void>> = { ...journalBlobChecks, ...journalUndoChecks, ...journalDurabilityChecks }
