// One small interface over the two SQLite drivers: `sqlite3` under Node, `bun:sqlite` inside opencode (Bun).
// Each driver module is loaded with a dynamic import, so neither runtime ever loads the other's module.

/** A value SQLite binds or returns: TEXT, INTEGER/REAL, BLOB or NULL. */
export type SqlValue = string | number | Uint8Array | null

/** Which driver a connection uses. */
export type SqliteDriverName = "sqlite3" | "bun:sqlite"

/** What a statement without result rows reports. */
export interface SqlRunResult {
  /** Rows inserted, updated or deleted. */
  changes: number
  /** Rowid of the last inserted row. */
  lastInsertRowid: number
}

/** One open SQLite connection. Calls must not overlap inside a transaction: callers serialize them. */
export interface SqliteDriver {
  /** The driver behind this connection. */
  readonly name: SqliteDriverName
  /** Path of the database file. */
  readonly file: string
  /** Runs one statement and returns its rows as arrays of column values, in column order. */
  all(sql: string, params?: readonly SqlValue[]): Promise<SqlValue[][]>
  /** Runs one statement that returns no rows. */
  run(sql: string, params?: readonly SqlValue[]): Promise<SqlRunResult>
  /** Runs a script of one or more statements without parameters. */
  exec(sql: string): Promise<void>
  /** Closes the connection; later calls reject. Closing twice is harmless. */
  close(): Promise<void>
}

// Declared here rather than through @types/bun: only its presence is tested.
declare const Bun: unknown

/** The driver this runtime can load: `bun:sqlite` under Bun, `sqlite3` under Node. */
export function runtimeDriverName(): SqliteDriverName {
  return typeof Bun !== "undefined" ? "bun:sqlite" : "sqlite3"
}

/** Opens (creating if needed) the database file with this runtime's driver, in WAL mode with a busy timeout. */
export async function openSqliteDriver(file: string): Promise<SqliteDriver> {
  if (runtimeDriverName() === "bun:sqlite") {
    const { openBunSqliteDriver } = await import("./bun-sqlite.driver")
    return openBunSqliteDriver(file)
  }
  const { openNodeSqlite3Driver } = await import("./node-sqlite3.driver")
  return openNodeSqlite3Driver(file)
}
