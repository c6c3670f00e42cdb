// What the live inspector reads of a workspace's database: the lifecycle rows written since a write sequence, the
// transition log of one instance and the watchdog's ledger after an id. Reads only, each in one call on the shared connection.
import { and, asc, desc, eq, gt, sql } from "drizzle-orm"
import type { StorageConnection } from "./storage.connection"
import { ledgerEntries } from "./tables/ledger.tables"
import { actors, transitions } from "./tables/lifecycle.tables"

/** One lifecycle row as the inspector shows it; `snapshot` is the stored JSON, parsed (null when it does not parse). */
export interface InspectedRow {
  machine: string
  instance: string
  session: string | null
  state: string
  final: boolean
  document: string | null
  updatedAt: number
  seq: number
  snapshot: unknown
}

export interface InspectedTransition {
  id: number
  machine: string
  instance: string
  session: string | null
  from: string
  event: string
  to: string
  at: number
}

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

  /** Whether anything was committed since the last call (SQLite's data_version moves with every other connection's commit). */
  async dataVersion(): Promise<number> {
    const row = await this.connection.exclusive((db) => db.get<{ data_version: number } | [number]>(sql`PRAGMA data_version`))
    const value = Array.isArray(row) ? row[0] : row?.data_version
    return typeof value === "number" ? value : -1
  }

  /** The lifecycle rows written after write sequence `seq`, oldest write first. */
  async rowsSince(seq: number): Promise<InspectedRow[]> {
    const rows = await this.connection.exclusive((db) => db.select().from(actors).where(gt(actors.seq, seq)).orderBy(asc(actors.seq)))
    return rows.map((row) => ({
      machine: row.machineId,
      instance: row.instanceId,
      session: row.sessionId,
      state: row.state,
      final: row.terminal,
      document: row.document,
      updatedAt: row.updatedAt,
      seq: row.seq,
      snapshot: parsed(row.snapshot),
    }))
  }

  /** The keys of every lifecycle row now (rows go when retention prunes finished instances). */
  async rowKeys(): Promise<string[]> {
    const rows = await this.connection.exclusive((db) => db.select({ machine: actors.machineId, instance: actors.instanceId }).from(actors))
    return rows.map((row) => `${row.machine}/${row.instance}`)
  }

  /** One instance's newest `limit` transitions, oldest first. */
  async transitionsOf(machine: string, instance: string, limit: number): Promise<InspectedTransition[]> {
    const rows = await this.connection.exclusive((db) =>
      db
        .select()
        .from(transitions)
        .where(and(eq(transitions.machineId, machine), eq(transitions.instanceId, instance)))
        .orderBy(desc(transitions.id))
        .limit(limit),
    )
    return rows.reverse().map((row) => ({
      id: row.id,
      machine: row.machineId,
      instance: row.instanceId,
      session: row.sessionId,
      from: row.fromState,
      event: row.event,
      to: row.toState,
      at: row.at,
    }))
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
