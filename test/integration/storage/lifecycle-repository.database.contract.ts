// The lifecycle repository contract, its database file: the driver and its pragmas, migrations, opening, closing and
// reopening.
import assert from "node:assert/strict"
import { existsSync } from "node:fs"
import { writeFile } from "node:fs/promises"
import path from "node:path"
import { databasePath } from "../../../adapters/storage/database.path"
import { openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { migrate, MIGRATIONS_TABLE } from "../../../adapters/storage/migrator"
import { migrations } from "../../../adapters/storage/migrations.generated"
import { runtimeDriverName } from "../../../adapters/storage/sqlite.driver"
import type { ContractTestApi } from "./contract.api"
import { type ContractHarness, errorText, repositoryCases, snapshot, transition } from "./lifecycle-repository.fixtures"

/** Registers the cases about the database file: driver, migrations, open, close and reopen. */
export function defineDatabaseContract(api: ContractTestApi, harness: ContractHarness): void {
  const { caseOf, open } = repositoryCases(api, harness)

  caseOf("the runtime picks this driver; WAL, foreign keys and busy timeout are on", async (dir) => {
    assert.equal(runtimeDriverName(), harness.driverName)
    const { store, driver } = await open(dir)
    try {
      assert.equal(driver.name, harness.driverName)
      assert.deepEqual(await driver.all("PRAGMA journal_mode"), [["wal"]])
      assert.deepEqual(await driver.all("PRAGMA foreign_keys"), [[1]])
      assert.deepEqual(await driver.all("PRAGMA busy_timeout"), [[5000]])
    } finally {
      await store.close()
    }
  })

  caseOf("migrations apply once, in order, recorded in __drizzle_migrations", async (dir) => {
    const first = await open(dir)
    assert.deepEqual(
      first.store.appliedMigrations,
      migrations.map((m) => m.tag),
    )
    const tables = await first.driver.all("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    assert.ok(tables.some(([name]) => name === "actors") && tables.some(([name]) => name === "transitions"))
    assert.deepEqual(await migrate(first.driver, migrations), [])
    await first.store.close()

    const second = await open(dir)
    try {
      assert.deepEqual(second.store.appliedMigrations, [])
      const rows = await second.driver.all(`SELECT hash, created_at FROM "${MIGRATIONS_TABLE}" ORDER BY id`)
      assert.deepEqual(
        rows,
        migrations.map((m) => [m.hash, m.folderMillis]),
      )
    } finally {
      await second.store.close()
    }
  })

  caseOf("a database with an unknown newer migration is refused with a clear error", async (dir) => {
    const first = await open(dir)
    await first.driver.run(`INSERT INTO "${MIGRATIONS_TABLE}" (hash, created_at) VALUES (?, ?)`, ["f".repeat(64), 4102444800000])
    await first.store.close()
    await assert.rejects(open(dir), /does not know \(hash f{64}.*newer Forge/)
  })

  caseOf("a migration applied with different content is refused", async (dir) => {
    const first = await open(dir)
    await first.driver.run(`UPDATE "${MIGRATIONS_TABLE}" SET hash = 'edited' WHERE id = 1`)
    await first.store.close()
    await assert.rejects(open(dir), new RegExp(`migration ${migrations[0]?.tag} was applied with different content`))
  })

  caseOf("a database path that cannot be opened fails naming the file", async (dir) => {
    await writeFile(path.join(dir, "plain-file"), "")
    const file = path.join(dir, "plain-file", "forge.db")
    await assert.rejects(harness.openDriver(file), (error: unknown) => errorText(error).includes(`cannot open SQLite database ${file}`))
  })

  caseOf("data survives close and reopen", async (dir) => {
    const first = await open(dir)
    const saved = snapshot({ state: "approved", snapshot: { kept: [1, 2, 3] } })
    await first.store.repository.commit(saved, transition())
    await first.store.close()
    const second = await open(dir)
    try {
      assert.deepEqual(await second.store.repository.getSnapshot("plan", "p1"), { ...saved, exclusiveKey: null, revision: 1 })
      assert.deepEqual(await second.store.repository.listTransitions(), [transition()])
    } finally {
      await second.store.close()
    }
  })

  caseOf("a closed store refuses further calls", async (dir) => {
    const { store } = await open(dir)
    const pending = store.repository.saveSnapshot(snapshot())
    await store.close()
    await pending
    await assert.rejects(store.repository.getSnapshot("plan", "p1"), /closed/)
    const again = await open(dir)
    try {
      assert.equal((await again.store.repository.getSnapshot("plan", "p1"))?.state, "draft")
    } finally {
      await again.store.close()
    }
  })

  caseOf("openLifecycleStore creates <workspace>/.opencode/forge/forge.db with the runtime's driver", async (dir) => {
    const workspace = path.join(dir, "workspace")
    const file = databasePath(workspace)
    assert.equal(file, path.join(workspace, ".opencode", "forge", "forge.db"))
    const store = await openLifecycleStore(workspace)
    try {
      assert.equal(store.file, file)
      assert.ok(existsSync(file))
      assert.deepEqual(
        store.appliedMigrations,
        migrations.map((m) => m.tag),
      )
      await store.repository.commit(snapshot(), transition())
    } finally {
      await store.close()
    }
    const byFile = await openLifecycleStore({ file })
    try {
      assert.deepEqual(byFile.appliedMigrations, [])
      assert.equal((await byFile.repository.listTransitions()).length, 1)
    } finally {
      await byFile.close()
    }
  })
}
