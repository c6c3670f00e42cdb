// The storage contract, written once and run on every driver: in vitest on `sqlite3` and under Bun on `bun:sqlite`.
// It uses node:assert only, so the Bun runner needs no test framework.
import assert from "node:assert/strict"
import { existsSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import path from "node:path"
import { databasePath } from "../../../adapters/storage/database.path"
import { ExclusiveKeyTaken } from "../../../services/lifecycle/exclusive.key"
import { createLifecycleStore, openLifecycleStore, type LifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { migrate, MIGRATIONS_TABLE } from "../../../adapters/storage/migrator"
import { migrations } from "../../../adapters/storage/migrations.generated"
import { runtimeDriverName, type SqliteDriver, type SqliteDriverName } from "../../../adapters/storage/sqlite.driver"
import type { ContractTestApi } from "./contract.api"
import { defineWorkspaceStoreContract } from "./workspace-store.contract"
import type { DamagedSnapshot, SnapshotRecord, TransitionRecord } from "../../../services/lifecycle/lifecycle.ports"

/** The little a test runner must offer: register a named async case. */
/** The driver under test. */
export interface ContractHarness {
  /** The driver this runtime is expected to pick. */
  driverName: SqliteDriverName
  /** Opens a connection on `file` (with the adapter's pragmas applied). */
  openDriver(file: string): Promise<SqliteDriver>
}

/** Registers every case of the lifecycle repository contract. */
export function defineLifecycleRepositoryContract(api: ContractTestApi, harness: ContractHarness): void {
  const caseOf = (name: string, body: (dir: string) => Promise<void>): void =>
    api.test(name, async () => {
      const dir = await mkdtemp(path.join(tmpdir(), "forge-storage-"))
      try {
        await body(dir)
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    })
  const open = async (dir: string): Promise<{ store: LifecycleStore; driver: SqliteDriver }> => {
    const driver = await harness.openDriver(path.join(dir, "forge.db"))
    return { store: await createLifecycleStore(driver), driver }
  }

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

  caseOf("saveSnapshot upserts by machine id and instance id", async (dir) => {
    const { store } = await open(dir)
    try {
      const repo = store.repository
      await repo.saveSnapshot(snapshot({ instanceId: "a", state: "draft" }))
      await repo.saveSnapshot(snapshot({ machineId: "goal", instanceId: "a", state: "queued" }))
      const updated = snapshot({ instanceId: "a", state: "approved", terminal: true, sessionId: null, document: null, machineVersion: "2", updatedAt: 9 })
      await repo.saveSnapshot(updated)
      assert.deepEqual(await repo.getSnapshot("plan", "a"), { ...updated, exclusiveKey: null, revision: 2 })
      assert.equal((await repo.getSnapshot("goal", "a"))?.state, "queued")
      assert.equal((await repo.loadSnapshots()).length, 2)
      assert.equal(await repo.getSnapshot("plan", "missing"), undefined)
    } finally {
      await store.close()
    }
  })

  caseOf("snapshot JSON round-trips exactly", async (dir) => {
    const { store } = await open(dir)
    try {
      const value = {
        status: "active",
        value: { approved: "working" },
        context: { text: 'quotes " and \\ and\nnewlines, ünïcødé, emoji 🚀', n: [0, -1, 3.25, 1e-7, 9007199254740991], none: null, empty: {}, list: [] },
        historyValue: {},
        children: { job: { snapshot: { deep: [[{ k: true }]] } } },
      }
      await store.repository.saveSnapshot(snapshot({ snapshot: value }))
      const loaded = await store.repository.getSnapshot("plan", "p1")
      assert.deepEqual(loaded?.snapshot, value)
      assert.equal(JSON.stringify(loaded?.snapshot), JSON.stringify(value))
      for (const scalar of ["text", 42, false, null, [1, "two"]]) {
        await store.repository.saveSnapshot(snapshot({ instanceId: "scalar", snapshot: scalar }))
        assert.deepEqual((await store.repository.getSnapshot("plan", "scalar"))?.snapshot, scalar)
      }
    } finally {
      await store.close()
    }
  })

  caseOf("commit writes the snapshot and appends the transition", async (dir) => {
    const { store } = await open(dir)
    try {
      const next = snapshot({ state: "approved", updatedAt: 20 })
      await store.repository.commit(next, transition({ from: "draft", event: "APPROVE", to: "approved", at: 20 }))
      assert.deepEqual(await store.repository.getSnapshot("plan", "p1"), { ...next, exclusiveKey: null, revision: 1 })
      assert.deepEqual(await store.repository.listTransitions(), [transition({ from: "draft", event: "APPROVE", to: "approved", at: 20 })])
    } finally {
      await store.close()
    }
  })

  caseOf("commit is atomic: a failing transition insert leaves the snapshot unwritten", async (dir) => {
    const { store, driver } = await open(dir)
    try {
      await failTransitionsWithEvent(driver, "BOOM")
      await store.repository.saveSnapshot(snapshot({ state: "draft", updatedAt: 1 }))
      await assert.rejects(store.repository.commit(snapshot({ state: "approved", updatedAt: 2 }), transition({ event: "BOOM" })), (error: unknown) =>
        errorText(error).includes("forced transition failure"),
      )
      assert.equal((await store.repository.getSnapshot("plan", "p1"))?.state, "draft")
      await assert.rejects(store.repository.commit(snapshot({ instanceId: "fresh" }), transition({ instanceId: "fresh", event: "BOOM" })))
      assert.equal(await store.repository.getSnapshot("plan", "fresh"), undefined)
      assert.deepEqual(await store.repository.listTransitions(), [])
      // The connection is usable again: the failed transaction was rolled back, not left open.
      await store.repository.commit(snapshot({ state: "approved" }), transition())
      assert.equal((await store.repository.listTransitions()).length, 1)
    } finally {
      await store.close()
    }
  })

  caseOf("invalid records are refused before anything is written", async (dir) => {
    const { store } = await open(dir)
    try {
      await assert.rejects(store.repository.commit(snapshot(), transition({ event: "" })), /commit: invalid transition record[\s\S]*event/)
      await assert.rejects(store.repository.saveSnapshot(snapshot({ updatedAt: -1 })), /saveSnapshot: invalid snapshot record[\s\S]*updatedAt/)
      await assert.rejects(store.repository.saveSnapshot(snapshot({ snapshot: undefined })), /snapshot of plan\/p1 is not serializable as JSON/)
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      await assert.rejects(store.repository.saveSnapshot(snapshot({ snapshot: cyclic })), /snapshot of plan\/p1 is not serializable as JSON/)
      assert.deepEqual(await store.repository.loadSnapshots(), [])
      assert.deepEqual(await store.repository.listTransitions(), [])
    } finally {
      await store.close()
    }
  })

  caseOf("a corrupt snapshot row costs only its own instance: left out of the load and reported naming the actor", async (dir) => {
    const { store, driver } = await open(dir)
    try {
      await store.repository.saveSnapshot(snapshot({ instanceId: "bad", sessionId: "s9", document: ".opencode/plan/bad.md" }))
      await store.repository.saveSnapshot(snapshot({ instanceId: "good" }))
      await driver.run("UPDATE actors SET snapshot = ? WHERE instance_id = ?", ["{not json", "bad"])
      const damaged: DamagedSnapshot[] = []
      const loaded = await store.repository.loadSnapshots({ onDamaged: (damage) => damaged.push(damage) })
      assert.deepEqual(
        loaded.map((r) => r.instanceId),
        ["good"],
      )
      assert.equal(damaged.length, 1)
      assert.equal(damaged[0]?.instanceId, "bad")
      assert.equal(damaged[0]?.sessionId, "s9")
      assert.equal(damaged[0]?.document, ".opencode/plan/bad.md")
      assert.match(damaged[0]?.problem ?? "", /actors row plan\/bad: snapshot is not valid JSON/)
      // Without a listener the damaged row is still only left out.
      assert.deepEqual(
        (await store.repository.loadSnapshots()).map((r) => r.instanceId),
        ["good"],
      )
      // Its id is still known: nothing is decoded to list the ids (what a rebuild from documents must skip).
      assert.deepEqual((await store.repository.instanceIds("plan")).sort(), ["bad", "good"])
      assert.deepEqual(await store.repository.instanceIds("goal"), [])
    } finally {
      await store.close()
    }
  })

  caseOf("a database path that cannot be opened fails naming the file", async (dir) => {
    await writeFile(path.join(dir, "plain-file"), "")
    const file = path.join(dir, "plain-file", "forge.db")
    await assert.rejects(harness.openDriver(file), (error: unknown) => errorText(error).includes(`cannot open SQLite database ${file}`))
  })

  caseOf("listTransitions returns insertion order and applies every filter", async (dir) => {
    const { store } = await open(dir)
    try {
      const rows: TransitionRecord[] = [
        transition({ machineId: "plan", instanceId: "a", sessionId: "s1", event: "E1", at: 50 }),
        transition({ machineId: "goal", instanceId: "a", sessionId: "s2", event: "E2", at: 10 }),
        transition({ machineId: "plan", instanceId: "b", sessionId: null, event: "E3", at: 30 }),
        transition({ machineId: "plan", instanceId: "a", sessionId: "s2", event: "E4", at: 20 }),
      ]
      for (const row of rows) {
        await store.repository.commit(snapshot({ machineId: row.machineId, instanceId: row.instanceId }), row)
      }
      const events = async (filter?: Parameters<typeof store.repository.listTransitions>[0]) =>
        (await store.repository.listTransitions(filter)).map((t) => t.event)
      assert.deepEqual(await store.repository.listTransitions(), rows)
      assert.deepEqual(await events({ machineId: "plan" }), ["E1", "E3", "E4"])
      assert.deepEqual(await events({ instanceId: "a" }), ["E1", "E2", "E4"])
      assert.deepEqual(await events({ sessionId: "s2" }), ["E2", "E4"])
      assert.deepEqual(await events({ machineId: "plan", instanceId: "a" }), ["E1", "E4"])
      assert.deepEqual(await events({ machineId: "plan", instanceId: "a", sessionId: "s2" }), ["E4"])
      assert.deepEqual(await events({ machineId: "crew" }), [])
    } finally {
      await store.close()
    }
  })

  caseOf("loadSnapshots filters by machine and leaves out terminal actors on request", async (dir) => {
    const { store } = await open(dir)
    try {
      await store.repository.saveSnapshot(snapshot({ machineId: "plan", instanceId: "b", terminal: true, state: "done" }))
      await store.repository.saveSnapshot(snapshot({ machineId: "plan", instanceId: "a" }))
      await store.repository.saveSnapshot(snapshot({ machineId: "goal", instanceId: "g", terminal: true, state: "completed" }))
      const ids = (records: SnapshotRecord[]) => records.map((r) => `${r.machineId}/${r.instanceId}`)
      assert.deepEqual(ids(await store.repository.loadSnapshots()), ["goal/g", "plan/a", "plan/b"])
      assert.deepEqual(ids(await store.repository.loadSnapshots({ includeTerminal: true })), ["goal/g", "plan/a", "plan/b"])
      assert.deepEqual(ids(await store.repository.loadSnapshots({ includeTerminal: false })), ["plan/a"])
      assert.deepEqual(ids(await store.repository.loadSnapshots({ machineId: "plan" })), ["plan/a", "plan/b"])
      assert.deepEqual(ids(await store.repository.loadSnapshots({ machineId: "goal", includeTerminal: false })), [])
      assert.equal((await store.repository.getSnapshot("plan", "b"))?.terminal, true)
    } finally {
      await store.close()
    }
  })

  caseOf("pruneTerminal keeps the newest terminal instances of one machine, their transitions, and every live one", async (dir) => {
    const { store } = await open(dir)
    try {
      const repo = store.repository
      for (let n = 1; n <= 5; n++) {
        await repo.commit(
          snapshot({ machineId: "job", instanceId: `j${n}`, terminal: true, state: "cleared", updatedAt: n * 10 }),
          transition({ machineId: "job", instanceId: `j${n}`, at: n * 10 }),
        )
      }
      await repo.commit(snapshot({ machineId: "job", instanceId: "live", updatedAt: 1 }), transition({ machineId: "job", instanceId: "live", at: 1 }))
      await repo.commit(
        snapshot({ machineId: "plan", instanceId: "old", terminal: true, state: "done", updatedAt: 0 }),
        transition({ instanceId: "old", at: 0 }),
      )
      assert.equal(await repo.pruneTerminal("job", 2), 3)
      const ids = (records: { instanceId: string }[]) => records.map((r) => r.instanceId).sort()
      assert.deepEqual(ids(await repo.loadSnapshots({ machineId: "job" })), ["j4", "j5", "live"])
      assert.deepEqual(ids(await repo.listTransitions({ machineId: "job" })), ["j4", "j5", "live"])
      // Another machine's history is its own.
      assert.deepEqual(ids(await repo.loadSnapshots({ machineId: "plan" })), ["old"])
      assert.equal(await repo.pruneTerminal("job", 2), 0)
      await assert.rejects(repo.pruneTerminal("job", -1), /keep must be a whole number >= 0, got -1/)
    } finally {
      await store.close()
    }
  })

  caseOf("step decides on the latest record in one write transaction and bumps its revision", async (dir) => {
    const { store } = await open(dir)
    try {
      const repo = store.repository
      const seen: (number | undefined)[] = []
      const first = await repo.step("plan", "p1", async (current) => {
        seen.push(current?.revision)
        return { snapshot: snapshot(), transition: transition({ from: "(none)", event: "xstate.init", to: "draft" }) }
      })
      assert.equal(first?.revision, 1)
      const second = await repo.step("plan", "p1", async (current) => {
        seen.push(current?.revision)
        return { snapshot: snapshot({ state: "approved", exclusiveKey: "plan:session:s1" }), transition: transition() }
      })
      assert.deepEqual([second?.revision, second?.state, second?.exclusiveKey], [2, "approved", "plan:session:s1"])
      assert.deepEqual(seen, [undefined, 1])
      // Deciding nothing writes nothing; a decision that throws leaves row and log as they were.
      assert.equal(await repo.step("plan", "p1", async () => undefined), undefined)
      await assert.rejects(
        repo.step("plan", "p1", async () => {
          throw new Error("the document write failed")
        }),
        /the document write failed/,
      )
      assert.equal((await repo.getSnapshot("plan", "p1"))?.revision, 2)
      assert.equal((await repo.listTransitions()).length, 2)
    } finally {
      await store.close()
    }
  })

  caseOf("an exclusive key has one live holder: a second is refused by name, a freed key is taken", async (dir) => {
    const { store } = await open(dir)
    try {
      const repo = store.repository
      await repo.saveSnapshot(snapshot({ instanceId: "a", exclusiveKey: "plan:session:s1" }))
      const second = repo.step("plan", "b", async () => ({
        snapshot: snapshot({ instanceId: "b", exclusiveKey: "plan:session:s1" }),
        transition: transition(),
      }))
      await assert.rejects(second, (error: unknown) => error instanceof ExclusiveKeyTaken && error.holder === "a" && error.key === "plan:session:s1")
      assert.equal(await repo.getSnapshot("plan", "b"), undefined)
      // The holder may write itself again; once it lets the key go, another takes it.
      await repo.saveSnapshot(snapshot({ instanceId: "a", exclusiveKey: "plan:session:s1", state: "approved" }))
      await repo.saveSnapshot(snapshot({ instanceId: "a", exclusiveKey: null, state: "done", terminal: true }))
      await repo.saveSnapshot(snapshot({ instanceId: "b", exclusiveKey: "plan:session:s1" }))
      assert.equal((await repo.getSnapshot("plan", "b"))?.exclusiveKey, "plan:session:s1")
    } finally {
      await store.close()
    }
  })

  caseOf("changedSince hands out the rows written after a point, in the order they were written", async (dir) => {
    const { store } = await open(dir)
    try {
      const repo = store.repository
      await repo.saveSnapshot(snapshot({ instanceId: "a" }))
      await repo.saveSnapshot(snapshot({ machineId: "job", instanceId: "j" }))
      const all = await repo.changedSince(0)
      assert.deepEqual(
        all.records.map((r) => r.instanceId),
        ["a", "j"],
      )
      await repo.saveSnapshot(snapshot({ instanceId: "b" }))
      await repo.saveSnapshot(snapshot({ instanceId: "a", state: "approved" }))
      const later = await repo.changedSince(all.seq, ["plan"])
      assert.deepEqual(
        later.records.map((r) => [r.instanceId, r.state]),
        [
          ["b", "draft"],
          ["a", "approved"],
        ],
      )
      assert.deepEqual((await repo.changedSince(later.seq)).records, [])
    } finally {
      await store.close()
    }
  })

  caseOf("the change stamp moves with every commit, another connection's included, and stays while nobody commits", async (dir) => {
    const writer = await open(dir)
    const reader = await open(dir)
    try {
      const stamp = () => reader.store.repository.changeStamp?.()
      const before = stamp()
      assert.notEqual(before, undefined)
      assert.equal(stamp(), before)
      await writer.store.repository.saveSnapshot(snapshot({ instanceId: "other" }))
      const after = stamp()
      assert.notEqual(after, before)
      await reader.store.repository.loadSnapshots()
      assert.equal(stamp(), after)
    } finally {
      await writer.store.close()
      await reader.store.close()
    }
  })

  caseOf("data_version moves for another connection's commit, not for the connection's own", async (dir) => {
    const writer = await open(dir)
    const reader = await open(dir)
    try {
      const before = await reader.store.repository.dataVersion()
      await reader.store.repository.saveSnapshot(snapshot({ instanceId: "own" }))
      assert.equal(await reader.store.repository.dataVersion(), before)
      await writer.store.repository.saveSnapshot(snapshot({ instanceId: "other" }))
      assert.notEqual(await reader.store.repository.dataVersion(), before)
    } finally {
      await writer.store.close()
      await reader.store.close()
    }
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

  caseOf("a second connection on the same file sees committed data", async (dir) => {
    const writer = await open(dir)
    const reader = await open(dir)
    try {
      await writer.store.repository.commit(snapshot({ state: "approved" }), transition())
      assert.equal((await reader.store.repository.getSnapshot("plan", "p1"))?.state, "approved")
      assert.equal((await reader.store.repository.listTransitions()).length, 1)
    } finally {
      await writer.store.close()
      await reader.store.close()
    }
  })

  caseOf("concurrent calls serialize: no interleaving inside a commit, call order kept", async (dir) => {
    const { store, driver } = await open(dir)
    try {
      await failTransitionsWithEvent(driver, "BOOM")
      const calls: Promise<string>[] = []
      const expectedFailures: string[] = []
      for (let i = 0; i < 40; i += 1) {
        const id = `i${String(i).padStart(2, "0")}`
        const failing = i % 7 === 3 && i % 5 !== 4
        if (failing) expectedFailures.push(id)
        if (i % 5 === 4) {
          calls.push(store.repository.saveSnapshot(snapshot({ instanceId: id, state: "saved" })).then(() => `saved ${id}`))
        } else {
          const done = store.repository.commit(snapshot({ instanceId: id, state: "approved" }), transition({ instanceId: id, event: failing ? "BOOM" : "GO" }))
          calls.push(
            done.then(
              () => `committed ${id}`,
              () => `failed ${id}`,
            ),
          )
        }
      }
      const outcomes = await Promise.all(calls)
      const committed = outcomes.filter((o) => o.startsWith("committed")).map((o) => o.slice("committed ".length))
      const failed = outcomes.filter((o) => o.startsWith("failed")).map((o) => o.slice("failed ".length))
      const saved = outcomes.filter((o) => o.startsWith("saved")).map((o) => o.slice("saved ".length))
      assert.deepEqual(failed, expectedFailures)
      assert.equal(failed.length, 5)
      assert.equal(saved.length, 8)
      assert.deepEqual(
        (await store.repository.listTransitions()).map((t) => t.instanceId),
        committed,
      )
      const stored = await store.repository.loadSnapshots()
      assert.deepEqual(
        stored.map((s) => s.instanceId),
        [...committed, ...saved].sort(),
      )
      for (const id of failed) assert.equal(await store.repository.getSnapshot("plan", id), undefined)
    } finally {
      await store.close()
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

  defineWorkspaceStoreContract(api)
}

function snapshot(overrides: Partial<SnapshotRecord> = {}): SnapshotRecord {
  return {
    machineId: "plan",
    machineVersion: "1",
    instanceId: "p1",
    sessionId: "s1",
    state: "draft",
    terminal: false,
    snapshot: { status: "active", value: overrides.state ?? "draft", context: {} },
    document: ".opencode/plan/p1.md",
    updatedAt: 1_700_000_000_000,
    ...overrides,
  }
}

function transition(overrides: Partial<TransitionRecord> = {}): TransitionRecord {
  return { machineId: "plan", instanceId: "p1", sessionId: "s1", from: "draft", event: "APPROVE", to: "approved", at: 1_700_000_000_001, ...overrides }
}

// A real failure inside the transition insert (after the snapshot upsert ran in the same transaction).
async function failTransitionsWithEvent(driver: SqliteDriver, event: string): Promise<void> {
  await driver.exec(
    `CREATE TRIGGER fail_transition BEFORE INSERT ON transitions WHEN NEW.event = '${event}' BEGIN SELECT RAISE(ABORT, 'forced transition failure'); END`,
  )
}

function errorText(error: unknown): string {
  let text = ""
  for (let current: unknown = error; current instanceof Error; current = current.cause) text += `${current.message}\n`
  return text
}
