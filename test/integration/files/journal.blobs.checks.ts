// The undo journal's stored contents: each content once, a version a few bytes apart kept as a delta, and pruning that
// drops the oldest turns and the blobs nothing names any more.
import assert from "node:assert/strict"
import { createHash, randomBytes } from "node:crypto"
import path from "node:path"
import { UNDO_TOOL } from "../../../services/files/journal"
import { JournalError } from "../../../services/files/journal.errors"
import { change, diskFiles, onDisk, open, rows, version } from "./journal.fixtures"

/** The checks of how the journal stores contents: blobs, deltas, pruning. */
export const journalBlobChecks: Record<string, (dir: string) => Promise<void>> = {
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
}
