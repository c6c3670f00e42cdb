// What the live inspector reads of a workspace's database besides the lifecycle repository's own reads: which records
// are there (retention removes finished ones) and the watchdog's ledger after an id. Reads only, on the shared connection.
import { and, asc, eq, gt } from "drizzle-orm"
import type { StorageConnection } from "./storage.connection"
import { ledgerEntries } from "./tables/ledger.tables"
import { actors } from "./tables/lifecycle.tables"

/** One watchdog ledger entry: a warning, a kill, a give-up of one shell call. */
export interface InspectedWatchdogEntry {
  id: number
  kind: string
  session: string | null
  subject: string | null
  at: number
  entry: unknown
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

export class InspectorReads {
  constructor(private readonly connection: StorageConnection) {}

  /** The keys of every lifecycle row now (rows go when retention prunes finished instances). */
  async rowKeys(): Promise<string[]> {
    const rows = await this.connection.exclusive((db) => db.select({ machine: actors.machineId, instance: actors.instanceId }).from(actors))
    return rows.map((row) => `${row.machine}/${row.instance}`)
  }

  /** Up to `limit` watchdog ledger entries after id `after`, oldest first. */
  async watchdogAfter(after: number, limit: number): Promise<InspectedWatchdogEntry[]> {
    const rows = await this.connection.exclusive((db) =>
      db
        .select()
        .from(ledgerEntries)
        .where(and(eq(ledgerEntries.ledger, "watchdog"), gt(ledgerEntries.id, after)))
        .orderBy(asc(ledgerEntries.id))
        .limit(limit),
    )
    return rows.map((row) => ({ id: row.id, kind: row.kind, session: row.sessionId, subject: row.subject, at: row.at, entry: parsed(row.entry) }))
  }
}
