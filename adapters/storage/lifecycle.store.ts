// Opening a workspace's Forge database: folder, driver, migrations, repository.
import { mkdir } from "node:fs/promises"
import path from "node:path"
import type { LifecycleRepository } from "../../services/lifecycle/lifecycle.ports"
import { databasePath } from "./database.path"
import { SqliteLifecycleRepository } from "./lifecycle.repository"
import { migrate } from "./migrator"
import { migrations } from "./migrations.generated"
import { openSqliteDriver, type SqliteDriver } from "./sqlite.driver"
import { type StorageConnection, createStorageConnection } from "./storage.connection"

/** An open, migrated Forge database and its lifecycle repository. */
export interface LifecycleStore {
  /** Actor snapshots and the transition log of this database. */
  readonly repository: LifecycleRepository
  /** Path of the database file. */
  readonly file: string
  /** The one connection of this database: other repositories of the workspace share it (run through `exclusive`). */
  readonly connection: StorageConnection
  /** Tags of the migrations this open applied (empty when the database was already current). */
  readonly appliedMigrations: readonly string[]
  /** Waits for pending calls, then closes the repository and the connection. */
  close(): Promise<void>
}

/** Opens the database of a workspace folder (or an explicit file) with this runtime's driver, creating and migrating it. */
export async function openLifecycleStore(target: string | { file: string }): Promise<LifecycleStore> {
  const file = typeof target === "string" ? databasePath(target) : path.resolve(target.file)
  await mkdir(path.dirname(file), { recursive: true })
  return createLifecycleStore(await openSqliteDriver(file))
}

/** Migrates an already open driver and builds the store over it; the store owns (and closes) the driver. */
export async function createLifecycleStore(driver: SqliteDriver): Promise<LifecycleStore> {
  let appliedMigrations: string[]
  try {
    appliedMigrations = await migrate(driver, migrations)
  } catch (error) {
    await driver.close()
    throw error
  }
  const connection = createStorageConnection(driver)
  const repository = new SqliteLifecycleRepository(connection)
  return {
    repository,
    connection,
    file: driver.file,
    appliedMigrations,
    async close() {
      await repository.close()
      await connection.close()
    },
  }
}
