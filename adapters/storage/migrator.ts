// Applies the migrations drizzle-kit generated (embedded in the bundle) at open: in order, each once, recorded
// in `__drizzle_migrations` (id, hash, created_at) the way drizzle's own migrator records them.
import type { SqliteDriver } from "./sqlite.driver"

/** One drizzle-kit migration, embedded as data by scripts/embed-migrations.ts. */
export interface EmbeddedMigration {
  /** File name without `.sql`, e.g. "0000_lifecycle". */
  tag: string
  /** The journal's `when`: milliseconds since the epoch; stored as `created_at`. */
  folderMillis: number
  /** sha256 (hex) of the whole .sql file, as drizzle computes it. */
  hash: string
  /** The statements, split on `--> statement-breakpoint`. */
  sql: readonly string[]
}

/** Name of the bookkeeping table (drizzle's default). */
export const MIGRATIONS_TABLE = "__drizzle_migrations"

/** Applies the pending migrations in one IMMEDIATE transaction; returns the tags it applied (empty when current). */
export async function migrate(driver: SqliteDriver, migrations: readonly EmbeddedMigration[]): Promise<string[]> {
  checkMigrationList(migrations)
  await driver.exec(`CREATE TABLE IF NOT EXISTS "${MIGRATIONS_TABLE}" (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric)`)
  // IMMEDIATE takes the write lock before reading, so two processes opening at once cannot both apply.
  await driver.exec("BEGIN IMMEDIATE")
  const applied: string[] = []
  let current: EmbeddedMigration | undefined
  try {
    const rows = await driver.all(`SELECT hash, created_at FROM "${MIGRATIONS_TABLE}" ORDER BY id`)
    const known = new Set(migrations.map((migration) => migration.hash))
    const done = new Set<string>()
    for (const [hash, createdAt] of rows) {
      const text = String(hash)
      if (!known.has(text)) throw unknownMigrationError(driver.file, text, Number(createdAt), migrations)
      done.add(text)
    }
    for (const migration of migrations) {
      if (done.has(migration.hash)) continue
      current = migration
      for (const statement of migration.sql) await driver.exec(statement)
      await driver.run(`INSERT INTO "${MIGRATIONS_TABLE}" (hash, created_at) VALUES (?, ?)`, [migration.hash, migration.folderMillis])
      applied.push(migration.tag)
    }
    await driver.exec("COMMIT")
  } catch (error) {
    // SQLite may already have rolled back on its own; the original error is the one worth reporting.
    await driver.exec("ROLLBACK").catch(() => undefined)
    if (current === undefined) throw error
    const message = error instanceof Error ? error.message : String(error)
    throw new Error(`migration ${current.tag} failed on ${driver.file}: ${message}`, { cause: error })
  }
  return applied
}

function checkMigrationList(migrations: readonly EmbeddedMigration[]): void {
  migrations.forEach((migration, index) => {
    const previous = migrations[index - 1]
    if (previous !== undefined && previous.folderMillis >= migration.folderMillis) {
      throw new Error(`embedded migrations out of order: ${previous.tag} is not older than ${migration.tag}`)
    }
  })
}

function unknownMigrationError(file: string, hash: string, createdAt: number, migrations: readonly EmbeddedMigration[]): Error {
  const sameTime = migrations.find((migration) => migration.folderMillis === createdAt)
  if (sameTime !== undefined) {
    return new Error(
      `database ${file}: migration ${sameTime.tag} was applied with different content ` +
        `(recorded hash ${hash}, expected ${sameTime.hash}); refusing to use it`,
    )
  }
  const when = Number.isFinite(createdAt) ? new Date(createdAt).toISOString() : String(createdAt)
  return new Error(
    `database ${file} has a migration this version does not know (hash ${hash}, created ${when}): ` +
      `it was written by a newer Forge; upgrade Forge or move the database aside`,
  )
}
