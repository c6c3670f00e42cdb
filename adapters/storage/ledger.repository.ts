// The ledger store in SQLite: every named ledger's rows in the one `ledger_entries` table, each ledger rotated to its
// newest rows on every append. A host writes it on the runtime's shared connection (sharedLedgerStore).
// openLedgerStore opens a connection of its own (to read ledgers from outside a host); that takes care under Bun:
// bun:sqlite is synchronous, so a second connection waiting for a lock held by another connection of the same thread
// would freeze the thread until its busy timeout. Hence every write is one auto-committed statement, that connection
// does not wait for locks (busy_timeout 0), and a busy database is retried later from a timer.
import { mkdir } from "node:fs/promises"
import path from "node:path"
import { type SQL, and, asc, desc, eq, gte, lte, notInArray } from "drizzle-orm"
import type { LedgerQuery, LedgerRow, LedgerStore, StoredLedgerRow } from "../../services/lifecycle/ledger.ports"
import { databasePath } from "./database.path"
import { migrate } from "./migrator"
import { migrations } from "./migrations.generated"
import { isBusy } from "./sqlite.busy"
import { openSqliteDriver } from "./sqlite.driver"
import { createStorageConnection, type ForgeDatabase, type StorageConnection } from "./storage.connection"
import { ledgerEntries } from "./tables/ledger.tables"

/** Delays before each retry of a statement that found the database busy (about 6 s in all). */
const BUSY_RETRY_MS = [10, 25, 50, 100, 200, 400, 800, 1600, 3000]

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

function whereOf(query: LedgerQuery): SQL | undefined {
  return and(
    eq(ledgerEntries.ledger, query.ledger),
    query.kind === undefined ? undefined : eq(ledgerEntries.kind, query.kind),
    query.sessionId === undefined ? undefined : eq(ledgerEntries.sessionId, query.sessionId),
    query.subject === undefined ? undefined : eq(ledgerEntries.subject, query.subject),
    query.since === undefined ? undefined : gte(ledgerEntries.at, query.since),
    query.until === undefined ? undefined : lte(ledgerEntries.at, query.until),
  )
}

/** The ledger store over one StorageConnection (uses it, does not own it). */
export class SqliteLedgerStore implements LedgerStore {
  constructor(private readonly connection: StorageConnection) {}

  async append(row: LedgerRow, keep: number): Promise<void> {
    const entry = JSON.stringify(row.entry)
    await this.statement((db) => db.insert(ledgerEntries).values({ ...row, entry }))
    // A second statement, not a transaction: another append in between only rotates sooner.
    await this.statement((db) =>
      db
        .delete(ledgerEntries)
        .where(
          and(
            eq(ledgerEntries.ledger, row.ledger),
            notInArray(
              ledgerEntries.id,
              db.select({ id: ledgerEntries.id }).from(ledgerEntries).where(eq(ledgerEntries.ledger, row.ledger)).orderBy(desc(ledgerEntries.id)).limit(keep),
            ),
          ),
        ),
    )
  }

  async query(query: LedgerQuery): Promise<StoredLedgerRow[]> {
    const rows = await this.statement((db) => db.select().from(ledgerEntries).where(whereOf(query)).orderBy(asc(ledgerEntries.id)))
    const decoded: StoredLedgerRow[] = []
    for (const row of rows) {
      try {
        decoded.push({ ...row, entry: JSON.parse(row.entry) })
      } catch {
        query.onDamaged?.({
          ledger: row.ledger,
          id: row.id,
          problem: `ledger_entries row ${row.id} (${row.ledger}): entry is not JSON: ${row.entry.slice(0, 200)}`,
        })
      }
    }
    return decoded
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

/** A ledger store with its own connection to a database file. */
export interface OwnLedgerStore extends LedgerStore {
  readonly file: string
  close(): Promise<void>
}

export interface OpenLedgerStoreOptions {
  /**
   * Apply the migrations first (default true). A host whose runtime already migrated the same file passes false:
   * a migration is a transaction held across awaits, which is exactly what must not run on a second connection.
   */
  migrate?: boolean
}

/** Opens the ledgers of a workspace (`<workspace>/.opencode/forge/forge.db`) or of an explicit file. */
export async function openLedgerStore(target: string | { file: string }, options: OpenLedgerStoreOptions = {}): Promise<OwnLedgerStore> {
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
  const store = new SqliteLedgerStore(connection)
  return {
    file: driver.file,
    append: (row, keep) => store.append(row, keep),
    query: (query) => store.query(query),
    close: () => connection.close(),
  }
}

/**
 * The ledger store a host uses: on the workspace database's own shared connection (the runtime's), reached on first
 * use, so every write queues behind the runtime's work instead of contending for the file's lock. The connection
 * belongs to the runtime: closing this store only stops further writes.
 */
export function sharedLedgerStore(connection: () => Promise<StorageConnection>): LedgerStore & { close(): Promise<void> } {
  let store: Promise<SqliteLedgerStore> | undefined
  let closed = false
  const open = (): Promise<SqliteLedgerStore> => {
    if (closed) return Promise.reject(new Error("the ledger store is closed"))
    store ??= connection()
      .then((c) => new SqliteLedgerStore(c))
      .catch((error: unknown) => {
        store = undefined
        throw error
      })
    return store
  }
  return {
    append: async (row, keep) => (await open()).append(row, keep),
    query: async (query) => (await open()).query(query),
    async close() {
      closed = true
    },
  }
}
