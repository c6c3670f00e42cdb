// What the undo journal keeps through a reopen, a database from before the revert table, an append that cannot stand,
// another process pruning meanwhile and a write that failed.
import assert from "node:assert/strict"
import { createHash } from "node:crypto"
import path from "node:path"
import { SqliteJournalStore } from "../../../adapters/storage/journal.repository"
import { createLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { migrate } from "../../../adapters/storage/migrator"
import { migrations } from "../../../adapters/storage/migrations.generated"
import { openSqliteDriver } from "../../../adapters/storage/sqlite.driver"
import { FileJournal, UNDO_TOOL } from "../../../services/files/journal"
import { change, clock, diskFiles, onDisk, open, rows } from "./journal.fixtures"

/** The checks of what the journal keeps: across reopens and old schemas, and whole or not at all. */
export const journalDurabilityChecks: Record<string, (dir: string) => Promise<void>> = {
  async "a journal written before the revert table keeps what stands, and undo walks on from it"(dir) {
    // Migrations up to 0007 kept one `undone_by` per entry; 0008 moves them into file_reverts.
    const driver = await openSqliteDriver(path.join(dir, "old.db"))
    const upTo = migrations.findIndex((m) => m.tag.startsWith("0008"))
    assert.ok(upTo > 0, "migration 0008 exists")
    await migrate(driver, migrations.slice(0, upTo))
    const [one, two] = ["one", "two"].map((text) => ({ hash: createHash("sha256").update(text).digest("hex"), text }))
    for (const blob of [one, two])
      await driver.run("INSERT INTO file_blobs (hash, bytes, size) VALUES (?, ?, ?)", [blob?.hash ?? "", Buffer.from(blob?.text ?? ""), 3])
    const file = path.join(dir, "work", "a.txt")
    const insert = "INSERT INTO file_journal (session_id, turn_id, tool, path, before_hash, after_hash, at, undone_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    await driver.run(insert, ["ses_1", "t0", "forge_write", file, null, one?.hash ?? "", 1, null])
    await driver.run(insert, ["ses_1", "t0", "forge_patch", file, one?.hash ?? "", two?.hash ?? "", 2, 3])
    await driver.run(insert, ["ses_1", "t1", UNDO_TOOL, file, two?.hash ?? "", one?.hash ?? "", 3, null])
    const db = await createLifecycleStore(driver)
    try {
      assert.deepEqual(
        db.appliedMigrations,
        migrations.slice(upTo).map((m) => m.tag),
      )
      assert.deepEqual(await rows(db, "SELECT reverter_id, reverted_id FROM file_reverts"), [[3, 2]])
      const store = new SqliteJournalStore(db.connection)
      assert.deepEqual(
        (await store.listByPath(file)).map((e) => [e.id, e.tool]),
        [
          [3, UNDO_TOOL],
          [1, "forge_write"],
        ],
      )
      await diskFiles.write(file, Buffer.from("one"))
      const journal = new FileJournal({ store, files: diskFiles, clock })
      assert.equal((await journal.undo(file)).reverted.tool, "forge_write")
      assert.equal(await onDisk(file), undefined)
    } finally {
      await db.close()
    }
  },

  async "a reopened database keeps the journal"(dir) {
    const first = await open(dir)
    const file = path.join(first.work, "kept.txt")
    try {
      await change(first.journal, file, "one")
      await change(first.journal, file, "two")
    } finally {
      await first.db.close()
    }
    const again = await open(dir)
    try {
      assert.deepEqual(
        (await again.store.listByPath(file)).map((e) => e.tool),
        ["forge_write", "forge_write"],
      )
      await again.journal.undo(file)
      assert.equal(await onDisk(file), "one")
      await again.journal.undo(file)
      assert.equal(await onDisk(file), undefined)
    } finally {
      await again.db.close()
    }
  },

  async "an append is all or nothing: a revert of an entry no longer standing, or an unknown content, stores nothing"(dir) {
    const { db, store } = await open(dir)
    try {
      const blob = { hash: "a".repeat(64), bytes: Buffer.from("x") }
      const entry = {
        session: "s",
        message: "msg_1",
        turn: "t",
        tool: "forge_write",
        path: "/w/x",
        before: null,
        after: blob.hash,
        beforeMode: null,
        afterMode: null,
        observed: false,
        at: 1,
      }
      const [first] = await store.append([{ entry, blobs: [blob] }])
      assert.equal(first?.message, "msg_1")
      const undo = { ...entry, tool: UNDO_TOOL, before: blob.hash, after: null, at: 2 }
      await store.append([{ entry: undo, blobs: [], reverts: [first?.id ?? 0] }])
      await assert.rejects(
        store.append([
          { entry: { ...entry, at: 3 }, blobs: [{ hash: "b".repeat(64), bytes: Buffer.from("y") }] },
          { entry: undo, blobs: [], reverts: [first?.id ?? 0] },
        ]),
        /the journal of \/w\/x changed meanwhile: 1 of the entries to revert \(1\) are undone or gone already/,
      )
      await assert.rejects(store.append([{ entry: { ...entry, after: "c".repeat(64) }, blobs: [] }]), /names content c+, which is neither given nor stored/)
      assert.deepEqual(await rows(db, "SELECT id FROM file_journal ORDER BY id"), [[1], [2]])
      assert.deepEqual(await rows(db, "SELECT reverter_id, reverted_id FROM file_reverts"), [[2, 1]])
      assert.deepEqual(await rows(db, "SELECT hash FROM file_blobs"), [[blob.hash]])
      assert.deepEqual(
        (await store.listBySession("s", 2)).map((e) => e.id),
        [2],
      )
      assert.equal(await store.readBlob("d".repeat(64)), undefined)
    } finally {
      await db.close()
    }
  },

  async "an append whose blob another process pruned meanwhile still stores every content it names"(dir) {
    const { db, store, journal, work } = await open(dir)
    try {
      const file = path.join(work, "gone.txt")
      const v1 = Buffer.from(`${"line\n".repeat(2_000)}one`)
      const v2 = Buffer.from(`${"line\n".repeat(2_000)}two`)
      await change(journal, file, v1)
      // Another process drops that entry and its blob: this store still believes the blob stored.
      await db.connection.exclusive(async () => {
        await db.connection.driver.run("DELETE FROM file_journal")
        await db.connection.driver.run("DELETE FROM file_blobs")
      })
      await change(journal, file, v2)
      const [entry] = await store.history(file)
      assert.equal(entry?.after, createHash("sha256").update(v2).digest("hex"))
      assert.ok(Buffer.from((await store.readBlob(entry?.before ?? "")) ?? []).equals(v1))
      assert.ok(Buffer.from((await store.readBlob(entry?.after ?? "")) ?? []).equals(v2))
      await journal.undo(file)
      assert.ok(Buffer.from((await diskFiles.read(file)) ?? []).equals(v1))
    } finally {
      await db.close()
    }
  },

  async "a change whose write fails leaves no entry, and no blob but those another entry or a delta still needs"(dir) {
    const { db, journal, work } = await open(dir)
    try {
      const file = path.join(work, "fails.txt")
      const v1 = Buffer.from(`${"line\n".repeat(2_000)}one`)
      await change(journal, file, v1)
      // A write that failed; handled at once, as the caller's allSettled does.
      const failing = (message: string) => {
        const write = Promise.reject(new Error(message))
        write.catch(() => undefined)
        return write
      }
      const failed = (after: Buffer) =>
        journal.record({ session: "ses_1", tool: "forge_write", path: file, before: v1, after }, failing("ENOSPC: no space left"))
      // The version before is stored already (the entry of v1 names it), and the new one is a delta against it.
      await assert.rejects(failed(Buffer.from(`${"line\n".repeat(2_000)}two`)), /^Error: ENOSPC/)
      assert.deepEqual(await rows(db, "SELECT count(*) FROM file_journal"), [[1]])
      assert.deepEqual(await rows(db, "SELECT count(*), sum(encoding = 2) FROM file_blobs"), [[1, 0]])
      // A version before the journal had not seen goes too.
      await diskFiles.write(file, Buffer.from("by hand"))
      await assert.rejects(
        journal.record({ session: "ses_1", tool: "forge_write", path: file, before: Buffer.from("by hand"), after: v1 }, failing("EIO")),
        /EIO/,
      )
      assert.deepEqual(await rows(db, "SELECT count(*) FROM file_blobs"), [[1]])
      assert.deepEqual(await rows(db, "SELECT count(*) FROM file_journal"), [[1]])
    } finally {
      await db.close()
    }
  },
}
