// Settings every Forge connection gets, whatever the driver.
import type { SqliteDriver } from "./sqlite.driver.types"

/** How long a statement waits for another process's write lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000

/** Sets busy_timeout (first, so the WAL switch itself may wait), WAL journaling with NORMAL sync, and foreign keys. */
export async function applyConnectionPragmas(driver: SqliteDriver): Promise<void> {
  await driver.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
  // WAL lets readers in other processes (a second opencode on the same workspace) proceed while one writes.
  await driver.all("PRAGMA journal_mode = WAL")
  // In WAL mode NORMAL syncs at checkpoints, not at every commit: a commit stays atomic and the database is never
  // corrupted; a power loss (not a crash) may lose the last commits. FULL cost each journaled file edit an fsync, 5 ms
  // here, 30x the commit itself and more than the atomic write of the file it journals, which is not synced either.
  await driver.exec("PRAGMA synchronous = NORMAL")
  await driver.exec("PRAGMA foreign_keys = ON")
}
