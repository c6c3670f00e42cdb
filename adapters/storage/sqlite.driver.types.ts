// The one small interface both SQLite drivers implement (kept apart from the opener, which loads the drivers).

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
