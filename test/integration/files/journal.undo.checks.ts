// Undo and rewind over real files: empty and binary contents, a turn rewound in one step, conflicts, an undo rewound,
// modes, links and changes the journal only saw.
import assert from "node:assert/strict"
import path from "node:path"
import { change, diskFiles, onDisk, open, tick } from "./journal.fixtures"

/** The checks of undo and rewind: what comes back on disk, and what is left alone. */
export const journalUndoChecks: Record<string, (dir: string) => Promise<void>> = {
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
}
