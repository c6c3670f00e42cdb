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
  const driver: SqliteDriver = {
    name: "sqlite3",
    file,
    all(sql: string, params: readonly SqlValue[] = []): Promise<SqlValue[][]> {
      open()
      return new Promise((resolve, reject) => {
        db.all<Record<string, SqlValue>>(sql, params.map(toSqlite3), (error, rows) =>
          // sqlite3 returns rows keyed by column name: columns that share a name, or are named like an
          // integer ("1"), must be aliased or they collapse or reorder. Drizzle's queries name every column.
          error ? reject(error) : resolve(rows.map((row) => Object.values(row))),
        )
      })
    },
    run(sql: string, params: readonly SqlValue[] = []): Promise<SqlRunResult> {
      open()
      return new Promise((resolve, reject) => {
        db.run(sql, params.map(toSqlite3), function (this: { changes: number; lastID: number }, error: Error | null) {
          error ? reject(error) : resolve({ changes: this.changes, lastInsertRowid: this.lastID })
        })
      })
    },
    exec(sql: string): Promise<void> {
      open()
      return new Promise((resolve, reject) => {
        db.exec(sql, (error) => (error ? reject(error) : resolve()))
      })
    },
    close(): Promise<void> {
      if (closed) return Promise.resolve()
      closed = true
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

function toSqlite3(value: SqlValue): SqlValue | Buffer {
  // sqlite3 binds BLOBs only from Buffers.
  return value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value) : value
}
