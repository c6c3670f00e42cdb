// The undo journal over the real SQLite store (the workspace database's connection) and real files, driver-agnostic:
// run under Node (sqlite3) by journal.store.test.ts and under opencode's Bun (bun:sqlite) by journal.bun.ts. Each
// check gets a fresh folder it may fill; the caller removes it.
import { fsToolFiles } from "../../../adapters/workspace/tool.files"
import assert from "node:assert/strict"
import { createHash, randomBytes } from "node:crypto"
import path from "node:path"
import { SqliteJournalStore } from "../../../adapters/storage/journal.repository"
import { type LifecycleStore, createLifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { migrate } from "../../../adapters/storage/migrator"
import { migrations } from "../../../adapters/storage/migrations.generated"
import { openSqliteDriver } from "../../../adapters/storage/sqlite.driver"
import { FileJournal, UNDO_TOOL } from "../../../services/files/journal"
import { JournalError } from "../../../services/files/journal.errors"
import type { JournalFiles } from "../../../services/files/journal.ports"

/** The forge file tools' own files on disk: the journal checks run against what the tools use. */
export const diskFiles: JournalFiles = fsToolFiles

interface Setup {
  db: LifecycleStore
  store: SqliteJournalStore
  journal: FileJournal
  /** The workspace's files live here. */
  work: string
}

let tick = 1_700_000_000_000
const clock = { now: () => ++tick }

async function open(dir: string): Promise<Setup> {
  const db = await openLifecycleStore(dir)
  const store = new SqliteJournalStore(db.connection)
  return { db, store, journal: new FileJournal({ store, files: diskFiles, clock }), work: path.join(dir, "work") }
}

/** What a Forge tool does: change the file on disk (undefined removes it), then journal the change. */
async function change(journal: FileJournal, file: string, after: Uint8Array | string | undefined, turn = "turn_1", session = "ses_1"): Promise<void> {
  const before = await diskFiles.read(file)
  const bytes = typeof after === "string" ? Buffer.from(after) : after
  if (bytes === undefined) await diskFiles.remove(file)
  else await diskFiles.write(file, bytes)
  await journal.record({ session, turn, tool: bytes === undefined ? "forge_remove" : "forge_write", path: file, before, after: bytes })
}

async function rows(db: LifecycleStore, query: string): Promise<unknown[][]> {
  return db.connection.exclusive(() => db.connection.driver.all(query))
}

async function onDisk(file: string): Promise<string | undefined> {
  const bytes = await diskFiles.read(file)
  return bytes === undefined ? undefined : Buffer.from(bytes).toString("latin1")
}

/** A version of a large file: the same bytes with a few of them changed. */
function version(base: Buffer, n: number): Buffer {
  const copy = Buffer.from(base)
  for (let i = 0; i < 8; i++) copy[(n * 7919 + i * 104_729) % copy.length] = n
  return copy
}

export const journalChecks: Record<string, (dir: string) => Promise<void>> = {
  async "100 edits between the same two contents store two blobs, and undos store none"(dir) {
    const { db, store, journal, work } = await open(dir)
    try {
      const file = path.join(work, "toggle.txt")
      await change(journal, file, "A")
      for (let i = 0; i < 100; i++) await change(journal, file, i % 2 === 0 ? "B" : "A")
      assert.deepEqual(await rows(db, "SELECT count(*), sum(size) FROM file_blobs"), [[2, 2]])
      assert.deepEqual(await rows(db, "SELECT count(*) FROM file_journal"), [[101]])
      // The last edit wrote "A"; each undo walks one edit back (the whole walk is the unit property's).
      for (const expected of ["B", "A", "B"]) {
        await journal.undo(file)
        assert.equal(await onDisk(file), expected)
      }
      assert.deepEqual(await rows(db, "SELECT count(*) FROM file_blobs"), [[2]])
      assert.equal((await store.listBySession("ses_1", 0)).filter((e) => e.undoneBy !== null || e.tool === UNDO_TOOL).length, 6)
    } finally {
      await db.close()
    }
  },

  async "a large file edited many times stores each version once (a few scattered bytes apart: a delta), every undo byte for byte"(dir) {
    const { db, journal, work } = await open(dir)
    try {
      const file = path.join(work, "big", "data.bin")
      const base = randomBytes(1024 * 1024)
      const versions = [0, 1, 2, 3].map((n) => version(base, n))
      const written: Buffer[] = []
      for (let i = 0; i < 12; i++) {
        const next = versions[i % versions.length] as Buffer
        await change(journal, file, next)
        written.push(next)
      }
      // Random bytes: the first version whole (nothing compresses them); each other one a delta of its 16 bytes that
      // differ from the version before it, scattered over the file.
      const [[count, stored]] = (await rows(db, "SELECT count(*), sum(size) FROM file_blobs")) as [[number, number]]
      assert.equal(count, 4)
      assert.ok(stored >= base.length && stored < base.length + 3 * 1024, `the blobs hold ${stored} bytes for 4 versions of ${base.length}`)
      for (let i = written.length - 2; i >= 0; i--) {
        await journal.undo(file)
        assert.ok(Buffer.from((await diskFiles.read(file)) ?? []).equals(written[i] as Buffer), `undo back to edit ${i} differs`)
      }
      await journal.undo(file)
      assert.equal(await diskFiles.read(file), undefined)
      await assert.rejects(journal.undo(file), (error: unknown) => error instanceof JournalError && error.message.startsWith(`nothing to undo for ${file}:`))
    } finally {
      await db.close()
    }
  },

  async "empty and binary files round-trip: creation of an empty file, a binary edit, a removal, undone"(dir) {
    const { db, journal, work } = await open(dir)
    try {
      const file = path.join(work, "e")
      const binary = Uint8Array.of(0, 255, 0, 10, 13, 0xc3)
      await change(journal, file, new Uint8Array(0))
      await change(journal, file, binary)
      await change(journal, file, undefined)
      assert.equal((await journal.undo(file)).action, "recreated")
      assert.deepEqual([...((await diskFiles.read(file)) ?? [])], [...binary])
      await journal.undo(file)
      assert.equal((await diskFiles.read(file))?.length, 0)
      assert.equal((await journal.undo(file)).action, "removed")
      assert.equal(await diskFiles.read(file), undefined)
    } finally {
      await db.close()
    }
  },

  async "rewind restores a turn's creations, edits and removals in one step; a conflict is left alone unless forced"(dir) {
    const { db, store, journal, work } = await open(dir)
    try {
      const [a, b, c] = ["a.txt", "new/b.txt", "c.txt"].map((name) => path.join(work, name)) as [string, string, string]
      await change(journal, a, "a0", "turn_0")
      await change(journal, c, "c0", "turn_0")
      const since = tick + 1
      await change(journal, a, "a1")
      await change(journal, b, "b1")
      await change(journal, c, undefined)
      await diskFiles.write(a, Buffer.from("theirs"))

      const report = await journal.rewind({ session: "ses_1", since, turn: "turn_2" })
      assert.deepEqual(
        report.restored.map((r) => [path.relative(work, r.path), r.action]),
        [
          ["c.txt", "recreated"],
          ["new/b.txt", "removed"],
        ],
      )
      assert.deepEqual(
        report.conflicts.map((r) => r.path),
        [a],
      )
      assert.equal(await onDisk(a), "theirs")
      assert.equal(await onDisk(b), undefined)
      assert.equal(await onDisk(c), "c0")

      const forced = await journal.rewind({ session: "ses_1", since, force: true })
      assert.deepEqual(
        forced.restored.map((r) => [r.path, r.action, r.overrode !== undefined]),
        [[a, "restored", true]],
      )
      assert.equal(await onDisk(a), "a0")
      assert.equal((await store.listBySession("ses_1", 0)).filter((e) => e.turn === "turn_1" && e.undoneBy === null).length, 0)
    } finally {
      await db.close()
    }
  },

  async "a rewind past an undo brings back the change the undo took away, and undo walks on from it"(dir) {
    const { db, store, journal, work } = await open(dir)
    try {
      const file = path.join(work, "a.txt")
      await change(journal, file, "one", "turn_0")
      await change(journal, file, "two", "turn_0")
      const since = tick + 1
      await journal.undo(file, { session: "ses_1", turn: "turn_1" })
      assert.equal(await onDisk(file), "one")
      await journal.rewind({ session: "ses_1", since, turn: "turn_2" })
      assert.equal(await onDisk(file), "two")
      assert.equal((await store.listBySession("ses_1", 0)).filter((e) => e.turn === "turn_0" && e.undoneBy === null).length, 2)
      await journal.undo(file)
      assert.equal(await onDisk(file), "one")
    } finally {
      await db.close()
    }
  },

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

  async "prune drops the oldest turns and the blobs no entry names any more, never the newest turn"(dir) {
    const { db, store, journal, work } = await open(dir)
    try {
      const file = path.join(work, "p.bin")
      // Random bytes: neither deflate nor a delta stores them smaller, so each version takes its 1,024 bytes.
      const blocks = new Map<number, Buffer>()
      const kb = (fill: number) => blocks.get(fill) ?? (blocks.set(fill, randomBytes(1024)).get(fill) as Buffer)
      await change(journal, file, kb(1), "t1")
      await change(journal, file, kb(2), "t1")
      await change(journal, file, kb(3), "t2")
      await change(journal, file, kb(4), "t3")
      await store.putBlob({ hash: "f".repeat(64), bytes: kb(9) })
      assert.deepEqual(
        (await store.turns()).map((t) => [t.turn, t.entries]),
        [
          ["t1", 2],
          ["t2", 1],
          ["t3", 1],
        ],
      )
      const report = await journal.prune(2048)
      assert.deepEqual(
        report.dropped.map((t) => t.turn),
        ["t1", "t2"],
      )
      assert.equal(report.totalBytes, 2048)
      assert.deepEqual(await rows(db, "SELECT turn_id FROM file_journal"), [["t3"]])
      // The stray blob went with the first sweep; what t3 names stays.
      assert.deepEqual(await rows(db, "SELECT count(*), sum(size) FROM file_blobs"), [[2, 2048]])
      const nothing = await journal.prune(0)
      assert.deepEqual(nothing.dropped, [])
      // The session's newest dropped change (t2's) is marked: a rewind to before it says it could not go that far.
      const t2At = Number((await rows(db, "SELECT max(at) FROM file_journal"))[0]?.[0]) - 1
      assert.equal(await store.prunedUntil("ses_1"), t2At)
      assert.equal(await store.prunedUntil("ses_other"), undefined)
      await journal.undo(file)
      assert.ok(Buffer.from((await diskFiles.read(file)) ?? []).equals(kb(3)))
      await change(journal, file, kb(5), "t4")
      assert.equal((await journal.rewind({ session: "ses_1", since: t2At + 1, turn: "t5" })).prunedUntil, undefined)
      assert.equal((await journal.rewind({ session: "ses_1", since: 0, turn: "t6" })).prunedUntil, t2At)
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

  async "keeps each version's mode, a link as a link and a seen change; history and a folder's paths read back as written"(dir) {
    const { db, store, journal, work } = await open(dir)
    try {
      const script = path.join(work, "run.sh")
      await diskFiles.write(script, Buffer.from("#!/bin/sh\n"), 0o100755)
      const before = await diskFiles.state(script)
      assert.equal(before?.mode, 0o100755)
      await diskFiles.remove(script)
      await journal.record({ session: "ses_1", tool: "forge_remove", path: script, before: before?.bytes, beforeMode: before?.mode, after: undefined })
      // A shell puts a link where the script was: journaled as seen, so the proof breaks there.
      await diskFiles.write(script, Buffer.from("elsewhere.sh"), 0o120777)
      const seen = await journal.observe({ session: "ses_1", tool: "forge_shell", path: script, now: await diskFiles.state(script) })
      assert.equal(seen?.observed, true)
      assert.equal(seen?.before, null)
      assert.deepEqual(
        (await store.history(script)).map((e) => [e.tool, e.beforeMode, e.afterMode, e.observed]),
        [
          ["forge_remove", 0o100755, null, false],
          ["forge_shell", null, 0o120777, true],
        ],
      )
      await assert.rejects(journal.undo(script), /forge_shell changed it at .* Forge does not undo it/)
      await diskFiles.remove(script)
      await diskFiles.write(path.join(work, "50%_off", "x"), Buffer.from("x"))
      await change(journal, path.join(work, "50%_off", "x"), "y")
      await change(journal, path.join(dir, "workshop", "y"), "y")
      assert.deepEqual(await journal.paths(work, 10), [path.join(work, "50%_off", "x"), script])
      assert.deepEqual(await journal.paths(path.join(work, "5"), 10), [])
    } finally {
      await db.close()
    }
  },

  async "small edits of a large file are stored as deltas, read back byte for byte, and pruning keeps the bases they need"(dir) {
    const { db, store, journal, work } = await open(dir)
    try {
      const file = path.join(work, "table.ts")
      const lines = Array.from({ length: 2_000 }, (_, i) => `row ${i}: ${randomBytes(24).toString("hex")}`)
      const versions: Buffer[] = []
      let sum = 0
      for (let edit = 0; edit < 40; edit++) {
        lines[(edit * 37) % lines.length] = `row edited ${edit}`
        const bytes = Buffer.from(lines.join("\n"))
        versions.push(bytes)
        sum += bytes.length
        await change(journal, file, bytes, `turn_${edit}`)
      }
      const [[count, stored]] = (await rows(db, "SELECT count(*), sum(size) FROM file_blobs")) as [[number, number]]
      assert.equal(count, 40)
      assert.ok(stored < sum * 0.2, `the blobs hold ${stored} bytes for ${sum} bytes of versions`)
      assert.deepEqual(await rows(db, "SELECT max(depth) <= 16, sum(encoding = 2) > 30 FROM file_blobs"), [[1, 1]])
      // Pruning the oldest turns drops their entries; a delta still named keeps the chain it reads through.
      const report = await journal.prune(stored - 1)
      assert.ok(report.dropped.length > 0)
      for (let at = versions.length - 2; at >= versions.length - 10; at--) {
        await journal.undo(file)
        assert.ok(Buffer.from((await diskFiles.read(file)) ?? []).equals(versions[at] as Buffer), `undo back to version ${at} differs`)
      }
      for (const [hash] of (await rows(db, "SELECT after_hash FROM file_journal WHERE after_hash IS NOT NULL")) as [string][]) {
        const bytes = await store.readBlob(hash)
        assert.equal(
          createHash("sha256")
            .update(bytes ?? new Uint8Array())
            .digest("hex"),
          hash,
        )
      }
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
