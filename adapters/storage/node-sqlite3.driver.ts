// SqliteDriver over the `sqlite3` package (N-API, asynchronous): the driver under Node (tests, CLI, harnesses).
import { applyConnectionPragmas } from "./connection.pragmas"
import type { SqliteDriver, SqlRunResult, SqlValue } from "./sqlite.driver.types"

type Sqlite3Module = typeof import("sqlite3")

/** Opens (creating if needed) `file` with `sqlite3`. */
export async function openNodeSqlite3Driver(file: string): Promise<SqliteDriver> {
  // A dynamic import keeps the native addon out of the bundle's static imports, so Bun never loads it.
  const loaded = (await import("sqlite3")) as Sqlite3Module & { default?: Sqlite3Module }
  const sqlite3 = loaded.default ?? loaded
  const db = await new Promise<InstanceType<Sqlite3Module["Database"]>>((resolve, reject) => {
    const opened = new sqlite3.Database(file, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE, (error) =>
      error ? reject(new Error(`cannot open SQLite database ${file}: ${error.message}`)) : resolve(opened),
    )
  })
  // Statements run in call order (sqlite3 may otherwise reorder independent statements).
  db.serialize()
  let closed = false
  const open = (): void => {
    if (closed) throw new Error(`SQLite database ${file} is closed`)
  }
  const statements = new PreparedStatements(db)
  const driver: SqliteDriver = {
    name: "sqlite3",
    file,
    async all(sql: string, params: readonly SqlValue[] = []): Promise<SqlValue[][]> {
      open()
      const statement = await statements.get(sql)
      return new Promise((resolve, reject) => {
        statement.all<Record<string, SqlValue>>(params.map(toSqlite3), (error, rows) =>
          // sqlite3 returns rows keyed by column name: columns that share a name, or are named like an
          // integer ("1"), must be aliased or they collapse or reorder. Drizzle's queries name every column.
          error ? reject(error) : resolve(rows.map((row) => Object.values(row))),
        )
      })
    },
    async run(sql: string, params: readonly SqlValue[] = []): Promise<SqlRunResult> {
      open()
      const done = (resolve: (result: SqlRunResult) => void, reject: (error: Error) => void) =>
        function (this: { changes: number; lastID: number }, error: Error | null) {
          error ? reject(error) : resolve({ changes: this.changes, lastInsertRowid: this.lastID })
        }
      // `run` steps a statement once: only one that never returns a row is kept (one that did would stay open).
      if (!ROWLESS.test(sql) || RETURNING.test(sql)) return new Promise((resolve, reject) => db.run(sql, params.map(toSqlite3), done(resolve, reject)))
      const statement = await statements.get(sql)
      return new Promise((resolve, reject) => statement.run(params.map(toSqlite3), done(resolve, reject)))
    },
    exec(sql: string): Promise<void> {
      open()
      return new Promise((resolve, reject) => {
        db.exec(sql, (error) => (error ? reject(error) : resolve()))
      })
    },
    async close(): Promise<void> {
      if (closed) return
      closed = true
      await statements.finalizeAll()
      return new Promise((resolve, reject) => {
        db.close((error) => (error ? reject(error) : resolve()))
      })
    },
  }
  try {
    await applyConnectionPragmas(driver)
  } catch (error) {
    await driver.close()
    throw error
  }
  return driver
}

/** Statements that return no row, which `run` may keep prepared. */
const ROWLESS = /^\s*(insert|update|delete|replace|begin|commit|rollback|end|savepoint|release)\b/i
const RETURNING = /\breturning\b/i
/** Statements kept prepared at most (the least recently used is finalized past it). */
const KEPT_STATEMENTS = 128

type Statement = InstanceType<Sqlite3Module["Statement"]>

/**
 * Statements kept prepared by their SQL, as bun:sqlite's query() keeps them: sqlite3's Database#all and #run prepare
 * and finalize a statement around each call, two more trips through the thread pool (~125 µs of a journal entry's
 * ~180 µs). A statement that does not prepare is not kept, and its error goes to the call.
 */
class PreparedStatements {
  private readonly kept = new Map<string, Promise<Statement>>()

  constructor(private readonly db: InstanceType<Sqlite3Module["Database"]>) {}

  get(sql: string): Promise<Statement> {
    const found = this.kept.get(sql)
    if (found !== undefined) {
      this.kept.delete(sql)
      this.kept.set(sql, found)
      return found
    }
    const prepared = new Promise<Statement>((resolve, reject) => {
      const statement = this.db.prepare(sql, (error: Error | null) => (error ? reject(error) : resolve(statement)))
    })
    this.kept.set(sql, prepared)
    prepared.catch(() => this.kept.delete(sql))
    for (const [oldest, statement] of this.kept) {
      if (this.kept.size <= KEPT_STATEMENTS) break
      this.kept.delete(oldest)
      // Finalized once the calls already queued on it are done.
      statement.then(
        (s) => s.finalize(),
        () => undefined,
      )
    }
    return prepared
  }

  async finalizeAll(): Promise<void> {
    const all = [...this.kept.values()]
    this.kept.clear()
    for (const statement of await Promise.allSettled(all)) {
      if (statement.status === "fulfilled") await new Promise<void>((resolve) => statement.value.finalize(() => resolve()))
    }
  }
}

function toSqlite3(value: SqlValue): SqlValue | Buffer {
  // sqlite3 binds BLOBs only from Buffers.
  return value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value) : value
}
