// Opening the workspace database so that trouble with it never takes the host down: a database Forge cannot use is
// named, logged, and replaced by an in-memory one with the same schema and code (the caller rebuilds it from the
// plan documents). What SQLite recovers silently is logged here too.
import { mkdir } from "node:fs/promises"
import path from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { type StorageTrouble, lockedRemedy, moveAsideRemedy } from "../../services/lifecycle/storage.trouble"
import type { Logger } from "../../services/lifecycle/lifecycle.ports"
import { QUICK_CHECK_MAX_BYTES, inspectDatabaseFiles, quickCheck } from "./database.health"
import { type LifecycleStore, createLifecycleStore } from "./lifecycle.store"
import { isBusy } from "./sqlite.busy"
import { type SqliteDriver, openSqliteDriver } from "./sqlite.driver"

/** The tables every migrated Forge database holds. */
const REQUIRED_TABLES = ["actors", "transitions", "ledger_entries", "key_value"]

/** SQLite's name for a database that lives in memory only, gone with its connection. */
export const MEMORY_DATABASE = ":memory:"

/**
 * How long an open keeps trying a database another process holds locked before it settles for the stand-in. Each
 * attempt already waits SQLite's busy timeout; a sibling opencode that opens (and migrates) the same file at the same
 * moment holds it for far less than this, and a stand-in would last this process's whole life.
 */
export const LOCKED_OPEN_WINDOW_MS = 20_000

export interface OpenWorkspaceStoreOptions {
  /** How long to keep retrying a locked database (LOCKED_OPEN_WINDOW_MS unless given; 0 tries once). */
  lockedWindowMs?: number
}

export interface WorkspaceStore {
  store: LifecycleStore
  /** Set when the file could not be used and `store` is the in-memory stand-in. */
  trouble?: StorageTrouble
}

/** Opens (creating and migrating) the database at `file`, or an in-memory stand-in when that file cannot be used. */
export async function openWorkspaceStore(file: string, log: Logger, options: OpenWorkspaceStoreOptions = {}): Promise<WorkspaceStore> {
  const signals = await inspectDatabaseFiles(file)
  for (const note of signals.notes) log[note.level](`Forge database: ${note.text}`)
  const { fatal } = signals
  let trouble: StorageTrouble | undefined = fatal === undefined ? undefined : { file, problem: fatal.text, remedy: moveAsideRemedy(fatal.path) }
  if (trouble === undefined) {
    try {
      const check = signals.suspect || signals.size <= QUICK_CHECK_MAX_BYTES
      return { store: await openWhenUnlocked(file, check, log, options.lockedWindowMs ?? LOCKED_OPEN_WINDOW_MS) }
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error)
      trouble = { file, problem, remedy: isBusy(error) ? lockedRemedy(file) : moveAsideRemedy(file) }
    }
  }
  return openStandIn(trouble, log)
}

/** Logs why the database cannot be used and opens the in-memory stand-in (same schema, same code). */
export async function openStandIn(trouble: StorageTrouble, log: Logger): Promise<WorkspaceStore> {
  log.error(
    `Forge cannot use its database ${trouble.file}: ${trouble.problem}. Forge runs on an in-memory database rebuilt from the plan documents ` +
      `until this is fixed (nothing it records now outlives this process; its plan tools answer with this error). To fix it: ${trouble.remedy}.`,
  )
  return { store: await createLifecycleStore(await openSqliteDriver(MEMORY_DATABASE)), trouble }
}

/** openChecked, tried again while another process holds the file locked, until `windowMs` has passed. */
async function openWhenUnlocked(file: string, check: boolean, log: Logger, windowMs: number): Promise<LifecycleStore> {
  const deadline = Date.now() + windowMs
  for (let attempt = 1; ; attempt++) {
    try {
      return await openChecked(file, check)
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error
      log.warn(`Forge database ${file} is locked by another process (attempt ${attempt}); Forge tries again`)
      await sleep(Math.min(200 * attempt, 1_000))
    }
  }
}

async function openChecked(file: string, check: boolean): Promise<LifecycleStore> {
  await mkdir(path.dirname(file), { recursive: true })
  const driver = await openSqliteDriver(file)
  try {
    // Before migrating: a damaged database is never written to.
    const damage = check ? await quickCheck(driver) : null
    if (damage !== null) throw new Error(damage)
  } catch (error) {
    await closeQuietly(driver)
    throw error
  }
  const store = await createLifecycleStore(driver)
  // Migrations are recorded once: a table lost since (a damaged schema) would fail every later write.
  const tables = new Set((await driver.all("SELECT name FROM sqlite_master WHERE type = 'table'").catch(() => [])).map(([name]) => String(name)))
  const missing = REQUIRED_TABLES.filter((table) => !tables.has(table))
  if (missing.length > 0) {
    await store.close().catch(() => undefined)
    throw new Error(`its schema is damaged: table ${missing.join(", ")} is missing although its migration is recorded`)
  }
  return store
}

async function closeQuietly(driver: SqliteDriver): Promise<void> {
  await driver.close().catch(() => undefined)
}
