// Read-only view of the plugin's lifecycle store (<project>/.opencode/forge/forge.db): the `actors`,
// `transitions` and `ledger_entries` (its "watchdog" ledger) tables. Opened read-only with a busy timeout so it can be read while opencode
// still runs.
import fs from "node:fs"
import sqlite3 from "sqlite3"

export interface ActorRow {
  machine: string
  instance: string
  state: string
  terminal: boolean
  sessionId: string | null
  document: string | null
}

export interface TransitionRow {
  /** Insertion order (SQLite rowid), whatever the table's own id column holds. */
  seq: number
  machine: string
  instance: string
  from: string
  event: string
  to: string
  sessionId: string | null
}

/** One entry of the watchdog's intervention ledger, oldest first. */
export interface WatchdogLedgerRow {
  kind: string
  callId: string | null
  pids: number[]
  message: string
}

export interface ForgeDbSnapshot {
  exists: boolean
  actors: ActorRow[]
  transitions: TransitionRow[]
  watchdogLedger: WatchdogLedgerRow[]
}

function all<T>(db: sqlite3.Database, sql: string): Promise<T[]> {
  return new Promise((resolve, reject) => db.all(sql, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows))))
}

function open(file: string): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (err) => (err ? reject(err) : resolve(db)))
  })
}

function close(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve) => db.close(() => resolve()))
}

async function hasTable(db: sqlite3.Database, name: string): Promise<boolean> {
  const rows = await all<{ name: string }>(db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name = '${name}'`)
  return rows.length > 0
}

/** The watchdog entry a ledger row holds (JSON), read leniently: a damaged entry reads as empty fields. */
function watchdogEntryOf(row: { kind: string; subject: string | null; entry: string }): WatchdogLedgerRow {
  let value: unknown
  try {
    value = JSON.parse(row.entry)
  } catch {
    value = {}
  }
  const entry = typeof value === "object" && value !== null ? (value as { pids?: unknown; message?: unknown }) : {}
  const pids = Array.isArray(entry.pids) ? entry.pids.filter((pid): pid is number => typeof pid === "number") : []
  return { kind: row.kind, callId: row.subject, pids, message: typeof entry.message === "string" ? entry.message : "" }
}

/** Everything in the three tables (of the ledgers, the watchdog's); a missing file or table reads as empty. */
export async function readForgeDb(file: string): Promise<ForgeDbSnapshot> {
  if (!fs.existsSync(file)) return { exists: false, actors: [], transitions: [], watchdogLedger: [] }
  const db = await open(file)
  try {
    db.configure("busyTimeout", 5_000)
    const actors = (await hasTable(db, "actors"))
      ? await all<{
          machine_id: string
          instance_id: string
          state: string
          terminal: number | boolean
          session_id: string | null
          document: string | null
        }>(db, "SELECT machine_id, instance_id, state, terminal, session_id, document FROM actors ORDER BY machine_id, instance_id")
      : []
    const transitions = (await hasTable(db, "transitions"))
      ? await all<{
          seq: number
          machine_id: string
          instance_id: string
          from_state: string
          event: string
          to_state: string
          session_id: string | null
        }>(db, "SELECT rowid AS seq, machine_id, instance_id, from_state, event, to_state, session_id FROM transitions ORDER BY rowid")
      : []
    const ledger = (await hasTable(db, "ledger_entries"))
      ? await all<{ kind: string; subject: string | null; entry: string }>(
          db,
          "SELECT kind, subject, entry FROM ledger_entries WHERE ledger = 'watchdog' ORDER BY id",
        )
      : []
    return {
      exists: true,
      actors: actors.map((a) => ({
        machine: a.machine_id,
        instance: a.instance_id,
        state: a.state,
        terminal: Boolean(a.terminal),
        sessionId: a.session_id,
        document: a.document,
      })),
      transitions: transitions.map((t) => ({
        seq: t.seq,
        machine: t.machine_id,
        instance: t.instance_id,
        from: t.from_state,
        event: t.event,
        to: t.to_state,
        sessionId: t.session_id,
      })),
      watchdogLedger: ledger.map(watchdogEntryOf),
    }
  } finally {
    await close(db)
  }
}

/**
 * Where the transition log stands (its newest row and how many there are; empty without a store): a settle window in
 * which it moves was not quiet. Any trouble reading reads as the same mark, so a damaged store never hangs a turn.
 */
export async function transitionMark(file: string): Promise<string> {
  if (!fs.existsSync(file)) return ""
  let db: sqlite3.Database | undefined
  try {
    db = await open(file)
    db.configure("busyTimeout", 1_000)
    if (!(await hasTable(db, "transitions"))) return ""
    const [row] = await all<{ n: number; last: number | null }>(db, "SELECT count(*) AS n, max(rowid) AS last FROM transitions")
    return `${row?.n ?? 0}:${row?.last ?? 0}`
  } catch {
    return "unreadable"
  } finally {
    if (db) await close(db)
  }
}
