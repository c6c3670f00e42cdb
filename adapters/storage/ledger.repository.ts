// The watchdog ledger in SQLite: one row per intervention, rotated to the newest WATCHDOG_LEDGER_LIMIT on every
// append. A host writes it on the runtime's shared connection (sharedWatchdogLedger). openWatchdogLedger opens a
// connection of its own (to read a ledger from outside a host); that takes care under Bun: bun:sqlite is synchronous,
// so a second connection waiting for a lock held by another connection of the same thread would freeze the thread
// until its busy timeout. Hence every write is one auto-committed statement, that connection does not wait for
// locks (busy_timeout 0), and a busy database is retried later from a timer.
import { mkdir } from "node:fs/promises"
import path from "node:path"
import { asc, desc, notInArray } from "drizzle-orm"
import { z } from "zod"
import { WATCHDOG_LEDGER_LIMIT, type WatchdogLedgerEntry, parseLedgerEntry } from "../../services/watchdog/watchdog.ledger"
import type { WatchdogLedger } from "../../services/watchdog/watchdog.ports"
import { databasePath } from "./lifecycle.store"
import { migrate } from "./migrator"
import { migrations } from "./migrations.generated"
import { openSqliteDriver } from "./sqlite.driver"
import { createStorageConnection, type ForgeDatabase, type StorageConnection } from "./storage.connection"
import { watchdogLedger } from "./tables/watchdog.tables"

type LedgerRow = typeof watchdogLedger.$inferSelect

const pidsSchema = z.array(z.int().positive())

/** Delays before each retry of a statement that found the database busy (about 6 s in all). */
const BUSY_RETRY_MS = [10, 25, 50, 100, 200, 400, 800, 1600, 3000]

function fromRow(row: LedgerRow): WatchdogLedgerEntry {
  let pids: unknown
  try {
    pids = JSON.parse(row.pids)
  } catch {
    throw new Error(`watchdog_ledger row ${row.id}: pids is not JSON: ${row.pids}`)
  }
  const checked = pidsSchema.safeParse(pids)
  if (!checked.success) throw new Error(`watchdog_ledger row ${row.id}: pids is not a list of pids: ${row.pids}`)
  return parseLedgerEntry(
    { at: row.at, kind: row.kind, callId: row.callId, sessionId: row.sessionId, command: row.command, pids: checked.data, message: row.message },
    `watchdog_ledger row ${row.id}`,
  )
}

/** Whether an error (or one of its causes: drizzle wraps driver errors) is SQLite's "database is locked". */
function isBusy(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (code === "SQLITE_BUSY" || /SQLITE_BUSY|database is locked/.test(e.message)) return true
  }
  return false
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The bounded watchdog ledger over one StorageConnection (uses it, does not own it). */
export class SqliteWatchdogLedger implements WatchdogLedger {
  constructor(
    private readonly connection: StorageConnection,
    private readonly limit = WATCHDOG_LEDGER_LIMIT,
  ) {}

  async append(entry: WatchdogLedgerEntry): Promise<void> {
    const valid = parseLedgerEntry(entry, "append")
    await this.statement((db) => db.insert(watchdogLedger).values({ ...valid, pids: JSON.stringify(valid.pids) }))
    // A second statement, not a transaction: another append in between only rotates sooner.
    await this.statement((db) =>
      db
        .delete(watchdogLedger)
        .where(notInArray(watchdogLedger.id, db.select({ id: watchdogLedger.id }).from(watchdogLedger).orderBy(desc(watchdogLedger.id)).limit(this.limit))),
    )
  }

  async list(): Promise<WatchdogLedgerEntry[]> {
    const rows = await this.statement((db) => db.select().from(watchdogLedger).orderBy(asc(watchdogLedger.id)))
    return rows.map(fromRow)
  }

  /** One statement alone on the connection, retried from a timer while the database is busy. */
  private async statement<T>(work: (db: ForgeDatabase) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.connection.exclusive(work)
      } catch (error) {
        const delay = BUSY_RETRY_MS[attempt]
        if (!isBusy(error) || delay === undefined) throw error
        await sleep(delay)
      }
    }
  }
}

/** A ledger with its own connection to a database file. */
export interface WatchdogLedgerStore extends WatchdogLedger {
  readonly file: string
  close(): Promise<void>
}

export interface OpenWatchdogLedgerOptions {
  /**
   * Apply the migrations first (default true). A host whose runtime already migrated the same file passes false:
   * a migration is a transaction held across awaits, which is exactly what must not run on a second connection.
   */
  migrate?: boolean
}

/** Opens the watchdog ledger of a workspace (`<workspace>/.opencode/forge/forge.db`) or of an explicit file. */
export async function openWatchdogLedger(target: string | { file: string }, options: OpenWatchdogLedgerOptions = {}): Promise<WatchdogLedgerStore> {
  const file = typeof target === "string" ? databasePath(target) : path.resolve(target.file)
  await mkdir(path.dirname(file), { recursive: true })
  const driver = await openSqliteDriver(file)
  try {
    if (options.migrate ?? true) await migrate(driver, migrations)
    // Never wait for a lock inside a statement (see the top of this file): busy statements are retried instead.
    await driver.exec("PRAGMA busy_timeout = 0")
  } catch (error) {
    await driver.close()
    throw error
  }
  const connection = createStorageConnection(driver)
  const ledger = new SqliteWatchdogLedger(connection)
  return {
    file: driver.file,
    append: (entry) => ledger.append(entry),
    list: () => ledger.list(),
    close: () => connection.close(),
  }
}

/**
 * The ledger a host uses: on the workspace database's own shared connection (the runtime's), reached on first use,
 * so every write queues behind the runtime's work instead of contending for the file's lock. The connection belongs
 * to the runtime: closing this ledger only stops further writes.
 */
export function sharedWatchdogLedger(connection: () => Promise<StorageConnection>): WatchdogLedger & { close(): Promise<void> } {
  let ledger: Promise<SqliteWatchdogLedger> | undefined
  let closed = false
  const open = (): Promise<SqliteWatchdogLedger> => {
    if (closed) return Promise.reject(new Error("the watchdog ledger is closed"))
    ledger ??= connection()
      .then((c) => new SqliteWatchdogLedger(c))
      .catch((error: unknown) => {
        ledger = undefined
        throw error
      })
    return ledger
  }
  return {
    append: async (entry) => (await open()).append(entry),
    list: async () => (await open()).list(),
    async close() {
      closed = true
    },
  }
}
