// One small interface over the two SQLite drivers: `sqlite3` under Node, `bun:sqlite` inside opencode (Bun).
// Each driver module is loaded with a dynamic import, so neither runtime ever loads the other's module.

import type { SqliteDriver, SqliteDriverName } from "./sqlite.driver.types"

export type { SqlValue, SqliteDriver, SqliteDriverName } from "./sqlite.driver.types"

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
