// Opening a workspace database that is damaged, on every driver (sqlite3 in vitest, bun:sqlite under Bun): the file
// is named with what is wrong, an in-memory stand-in with the same schema works, and nothing throws.
import assert from "node:assert/strict"
import { closeSync, mkdirSync, openSync, statSync, writeFileSync, writeSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import path from "node:path"
import { openWorkspaceStore } from "../../../adapters/storage/workspace.store"
import type { Logger } from "../../../services/lifecycle/lifecycle.ports"
import type { ContractTestApi } from "./contract.api"

function lines(): Logger & { lines: string[] } {
  const out: string[] = []
  const push = (level: string) => (message: string) => void out.push(`${level}: ${message}`)
  return { lines: out, info: push("info"), warn: push("warn"), error: push("error") }
}

const record = (instanceId: string) => ({
  machineId: "plan",
  machineVersion: "1",
  instanceId,
  sessionId: "s1",
  state: "draft",
  terminal: false,
  snapshot: { value: "draft", context: { pad: "x".repeat(3000) } },
  document: null,
  updatedAt: 1,
})

export function defineWorkspaceStoreContract(api: ContractTestApi): void {
  const caseOf = (name: string, body: (file: string) => Promise<void>): void =>
    api.test(name, async () => {
      const dir = await mkdtemp(path.join(tmpdir(), "forge-store-"))
      try {
        await body(path.join(dir, "forge", "forge.db"))
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    })

  caseOf("openWorkspaceStore: a healthy database opens on its file, quietly", async (file) => {
    const log = lines()
    const { store, trouble } = await openWorkspaceStore(file, log)
    try {
      assert.equal(trouble, undefined)
      assert.equal(store.file, file)
      await store.repository.saveSnapshot(record("p1"))
    } finally {
      await store.close()
    }
    const again = await openWorkspaceStore(file, log)
    await again.store.close()
    assert.deepEqual(log.lines, [])
  })

  caseOf("openWorkspaceStore: a file that is not a database is named, and an in-memory stand-in works", async (file) => {
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, "not a database at all\n".repeat(10))
    const log = lines()
    const { store, trouble } = await openWorkspaceStore(file, log)
    try {
      assert.equal(trouble?.file, file)
      assert.match(trouble?.problem ?? "", /does not start with the SQLite header/)
      assert.match(trouble?.remedy ?? "", new RegExp(`move ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} aside`))
      assert.match(log.lines[0] ?? "", /^error: Forge cannot use its database .*in-memory database rebuilt from the plan documents/)
      await store.repository.saveSnapshot(record("p1"))
      assert.deepEqual(
        (await store.repository.loadSnapshots()).map((r) => r.instanceId),
        ["p1"],
      )
    } finally {
      await store.close()
    }
  })

  caseOf("openWorkspaceStore: a folder where the database file should be is named", async (file) => {
    mkdirSync(file, { recursive: true })
    const { store, trouble } = await openWorkspaceStore(file, lines())
    await store.close()
    assert.match(trouble?.problem ?? "", /is a folder, not a database file/)
  })

  caseOf("openWorkspaceStore: damage inside the file is found by quick_check before anything is written", async (file) => {
    const first = await openWorkspaceStore(file, lines())
    for (let i = 0; i < 40; i++) await first.store.repository.saveSnapshot(record(`p${i}`))
    await first.store.close()
    const size = statSync(file).size
    const fd = openSync(file, "r+")
    // Scribble over every page but the first (the header and schema stay readable).
    for (let at = 4096; at < size; at += 4096) writeSync(fd, Buffer.alloc(64, 0x5a), 0, 64, at)
    closeSync(fd)
    const log = lines()
    const { store, trouble } = await openWorkspaceStore(file, log)
    await store.close()
    assert.match(trouble?.problem ?? "", /quick_check found damage|malformed/)
    assert.equal(statSync(file).size, size)
  })

  caseOf("openWorkspaceStore: a table lost from a migrated database is named, so writes never fail later", async (file) => {
    const first = await openWorkspaceStore(file, lines())
    await first.store.connection.driver.exec("DROP TABLE transitions")
    await first.store.close()
    const { store, trouble } = await openWorkspaceStore(file, lines())
    try {
      assert.match(trouble?.problem ?? "", /schema is damaged: table transitions is missing/)
      await store.repository.commit(record("p1"), { machineId: "plan", instanceId: "p1", sessionId: "s1", from: "(none)", event: "e", to: "draft", at: 1 })
    } finally {
      await store.close()
    }
  })
}
