// A drizzle database over one SqliteDriver, with a queue that gives each unit of work the connection alone.
import { drizzle, type SqliteRemoteDatabase } from "drizzle-orm/sqlite-proxy"
import * as schema from "./schema"
import type { SqliteDriver, SqlValue } from "./sqlite.driver"

/** The typed drizzle database every repository of this adapter queries. */
export type ForgeDatabase = SqliteRemoteDatabase<typeof schema>

/** One SQLite connection shared by the repositories of one database. */
export interface StorageConnection {
  /** The driver underneath (for diagnostics; queries go through `exclusive`). */
  readonly driver: SqliteDriver
  /**
   * Runs `work` once every earlier unit has settled, so a transaction never interleaves with another
   * caller's statements on the single connection. `work` must not call `exclusive` itself (it would wait forever).
   */
  exclusive<T>(work: (db: ForgeDatabase) => Promise<T>): Promise<T>
  /** Waits for queued work, then closes the driver; later `exclusive` calls reject. */
  close(): Promise<void>
}

/** Wraps an open driver (already migrated) in a drizzle database and a serializing queue. */
export function createStorageConnection(driver: SqliteDriver): StorageConnection {
  const db = drizzle(
    async (sql, params, method) => {
      const values = params.map((value, index) => toSqlValue(value, index, sql))
      if (method === "run") {
        await driver.run(sql, values)
        return { rows: [] }
      }
      const rows = await driver.all(sql, values)
      // sqlite-proxy expects `get` to answer with the single row itself (or undefined when there is none).
      return { rows: method === "get" ? (rows[0] as SqlValue[]) : rows }
    },
    { schema },
  )
  let tail: Promise<unknown> = Promise.resolve()
  let closed = false
  return {
    driver,
    exclusive<T>(work: (db: ForgeDatabase) => Promise<T>): Promise<T> {
      if (closed) return Promise.reject(new Error(`SQLite database ${driver.file} is closed`))
      const result = tail.then(() => work(db))
      tail = result.catch(() => undefined)
      return result
    },
    async close(): Promise<void> {
      if (closed) return
      closed = true
      await tail
      await driver.close()
    },
  }
}

function toSqlValue(value: unknown, index: number, sql: string): SqlValue {
  if (value === null || typeof value === "string" || typeof value === "number" || value instanceof Uint8Array) {
    return value
  }
  if (typeof value === "boolean") return value ? 1 : 0
  if (typeof value === "bigint" && Number.isSafeInteger(Number(value))) return Number(value)
  throw new TypeError(`cannot bind parameter ${index + 1} (${typeof value}) of SQL: ${sql}`)
}
