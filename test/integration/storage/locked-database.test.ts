// A workspace database another process holds locked when Forge opens it: a sibling opencode opening (and migrating)
// the same file at the same moment, or a tool with a write transaction open. Forge waits it out and opens the file;
// only a lock held past its window leaves it on the in-memory stand-in, named with the locked remedy.
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it, onTestFinished } from "vitest"
import { BUSY_TIMEOUT_MS } from "../../../adapters/storage/connection.pragmas"
import { openWorkspaceStore } from "../../../adapters/storage/workspace.store"
import { type OpenRestoreStep, composeWorkspace } from "../../../src/runtime"
import { lockedRemedy } from "../../../services/lifecycle/storage.trouble"
import { memoryLogger } from "../plan/plan.helpers"
import { snapshot } from "./lifecycle-repository.fixtures"
import { tempDir } from "../../temp.dir"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")

/** Another process (plain `sqlite3`, not Forge) that creates `file` and holds its write lock for `ms`, then commits. */
async function holdWriteLock(file: string, ms: number): Promise<ChildProcess> {
  const script = `
    const sqlite3 = require("sqlite3")
    const db = new sqlite3.Database(${JSON.stringify(file)})
    db.exec("PRAGMA journal_mode = WAL; BEGIN IMMEDIATE; CREATE TABLE IF NOT EXISTS held (x)", (error) => {
      if (error) throw error
      process.stdout.write("held\\n")
      setTimeout(() => db.exec("COMMIT", () => db.close(() => process.exit(0))), ${ms})
    })`
  const holder = spawn(process.execPath, ["-e", script], { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] })
  onTestFinished(() => void holder.kill("SIGKILL"))
  const [chunk] = (await once(holder.stdout as NodeJS.ReadableStream, "data")) as [Buffer]
  expect(chunk.toString()).toBe("held\n")
  return holder
}

const record = snapshot()

describe("a database another process holds locked at open", () => {
  it("is waited for past SQLite's busy timeout: Forge opens the file itself, not the stand-in", async () => {
    const file = path.join(tempDir("forge-locked-"), "forge.db")
    const holder = await holdWriteLock(file, BUSY_TIMEOUT_MS + 800)
    const log = memoryLogger()
    const started = Date.now()
    const { store, trouble } = await openWorkspaceStore(file, log)
    try {
      expect(trouble).toBeUndefined()
      expect(Date.now() - started).toBeGreaterThanOrEqual(BUSY_TIMEOUT_MS)
      expect(holder.exitCode ?? (await once(holder, "exit"))[0]).toBe(0)
      expect(log.lines.join("\n")).toMatch(/warn: Forge database .*forge\.db is locked by another process \(attempt 1\)/)
      expect(log.lines.some((line) => line.startsWith("error:"))).toBe(false)
      await store.repository.saveSnapshot(record)
      expect((await store.repository.loadSnapshots()).map((row) => row.instanceId)).toEqual(["p1"])
    } finally {
      await store.close()
    }
  }, 30_000)

  it("held past the window, leaves Forge on the stand-in, naming the lock and how to end it", async () => {
    const file = path.join(tempDir("forge-locked-"), "forge.db")
    await holdWriteLock(file, 60_000)
    const log = memoryLogger()
    const { store, trouble } = await openWorkspaceStore(file, log, { lockedWindowMs: 0 })
    try {
      expect(trouble?.file).toBe(file)
      expect(trouble?.problem).toMatch(/SQLITE_BUSY|database is locked/)
      expect(trouble?.remedy).toBe(lockedRemedy(file))
      expect(store.file).toBe(":memory:")
      await store.repository.saveSnapshot(record)
    } finally {
      await store.close()
    }
  }, 30_000)
})

describe("a restore at open that meets another process's lock", () => {
  it("is tried again on the file, not given up for the stand-in", async () => {
    const dir = tempDir("forge-locked-")
    const log = memoryLogger()
    const runs: string[] = []
    const step: OpenRestoreStep = {
      async run(repository) {
        runs.push("run")
        await repository.saveSnapshot(record)
        // What SQLite answers once its busy timeout ran out on a write another process's transaction holds.
        if (runs.length === 1) throw Object.assign(new Error("SQLITE_BUSY: database is locked"), { code: "SQLITE_BUSY" })
      },
      abandon: () => void runs.push("abandon"),
    }
    const workspace = composeWorkspace({ workspace: dir, log }, () => [step])
    const opened = await workspace.open()
    try {
      expect(runs).toEqual(["run", "abandon", "run"])
      expect(opened.storageTrouble).toBeUndefined()
      expect(log.lines.join("\n")).toMatch(/warn: Forge database .* is locked by another process while restoring \(attempt 1\)/)
      expect((await opened.repository.loadSnapshots()).map((row) => row.instanceId)).toEqual(["p1"])
    } finally {
      await opened.close()
    }
  })
})
