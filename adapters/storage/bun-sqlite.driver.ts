// SqliteDriver over Bun's built-in `bun:sqlite` (the runtime inside opencode). Bun's calls are synchronous;
// the interface is async so callers treat both drivers alike.
import { applyConnectionPragmas } from "./connection.pragmas"
import type { SqliteDriver, SqlRunResult, SqlValue } from "./sqlite.driver.types"

/** Opens (creating if needed) `file` with `bun:sqlite`; works only under Bun. */
export async function openBunSqliteDriver(file: string): Promise<SqliteDriver> {
  // A dynamic import keeps `bun:sqlite` out of the bundle's static imports, so Node can load the bundle too.
  const { Database } = await import("bun:sqlite")
  let db: InstanceType<typeof Database>
  try {
    db = new Database(file, { create: true, readwrite: true })
  } catch (error) {
    throw new Error(`cannot open SQLite database ${file}: ${error instanceof Error ? error.message : String(error)}`)
  }
  let closed = false
  const open = (): void => {
    if (closed) throw new Error(`SQLite database ${file} is closed`)
  }
  const driver: SqliteDriver = {
    name: "bun:sqlite",
    file,
    async all(sql: string, params: readonly SqlValue[] = []): Promise<SqlValue[][]> {
      open()
      return db
        .query(sql)
        .values(...params)
        .map((row) => row.map(fromBun))
    },
    async run(sql: string, params: readonly SqlValue[] = []): Promise<SqlRunResult> {
      open()
      const result = db.query(sql).run(...params)
      return { changes: result.changes, lastInsertRowid: Number(result.lastInsertRowid) }
    },
    async exec(sql: string): Promise<void> {
      open()
      db.exec(sql)
    },
    async close(): Promise<void> {
      if (closed) return
      closed = true
      db.close()
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

function fromBun(value: string | number | bigint | Uint8Array | null): SqlValue {
  // Only returned when safeIntegers is on, which this driver never enables; kept exact where it fits.
  return typeof value === "bigint" ? Number(value) : value
}
