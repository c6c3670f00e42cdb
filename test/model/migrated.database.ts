// Every model path starts its workspace from a copy of one migrated database: the migrations run once per test file
// (vitest gives each file its own modules), not once per path. The copy still opens through the real open path, whose
// migration check then finds nothing to apply.
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import path from "node:path"
import { databasePath } from "../../adapters/storage/database.path"
import { openLifecycleStore } from "../../adapters/storage/lifecycle.store"

let template: Promise<Uint8Array> | undefined

/** Places a migrated database where the workspace `dir` keeps its own (made on first use, copied from then on). */
export async function seedMigratedDatabase(dir: string): Promise<void> {
  template ??= migratedDatabase()
  const file = databasePath(dir)
  await mkdir(path.dirname(file), { recursive: true })
  await writeFile(file, await template)
}

/**
 * The bytes of a database file migrated through the real open path, then closed. Kept in memory, so the template file
 * goes at once and nothing is left in the run's temp dir to remove later.
 */
async function migratedDatabase(): Promise<Uint8Array> {
  const dir = mkdtempSync(path.join(tmpdir(), "forge-model-template-"))
  try {
    const file = path.join(dir, "forge.db")
    const store = await openLifecycleStore({ file })
    await store.close()
    // The last connection's close checkpoints the write-ahead log into the file and removes it with its index: the file
    // alone is the database, still in WAL mode (so a copy opens without switching its journal mode).
    for (const companion of [`${file}-wal`, `${file}-shm`]) {
      if (existsSync(companion)) throw new Error(`${companion} is left after close: the database file alone would not hold the migrated database`)
    }
    return await readFile(file)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
