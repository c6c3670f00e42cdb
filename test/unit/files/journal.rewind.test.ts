// The undo journal's rewind of a session's turn, over in-memory ports: every file it touched restored in one undoable
// change, conflicts left alone (or forced), undos inside the turn respected, and failures that put every file back.
import { beforeEach, describe, expect, it } from "vitest"
import { REWIND_TOOL } from "../../../services/files/journal"
import { RewindMovedError } from "../../../services/files/journal.errors"
import { change, clock, content, files, freshJournal, journal, refusal, store, text } from "./journal.helpers"

beforeEach(freshJournal)

describe("rewind", () => {
  /** Before the turn: a.txt and c.txt exist (journaled in turn 0); the turn edits a, creates b, removes c. */
  async function turn(): Promise<number> {
    await change("/w/a.txt", "a0", { turn: "turn_0" })
    await change("/w/c.txt", "c0", { turn: "turn_0" })
    clock.time += 1_000
    const since = clock.time
    await change("/w/a.txt", "a1", { turn: "turn_1" })
    await change("/w/a.txt", "a2", { turn: "turn_1" })
    await change("/w/b.txt", "b1", { turn: "turn_1" })
    await change("/w/c.txt", undefined, { turn: "turn_1", tool: "forge_remove" })
    await change("/w/other-session.txt", "x", { session: "ses_2", turn: "turn_9" })
    return since
  }

  it("restores every file the session touched since the turn, creations and removals included, in one report", async () => {
    const since = await turn()
    const report = await journal.rewind({ session: "ses_1", since, turn: "turn_2" })
    // Each write with the file's size before and after it.
    expect(report).toEqual({
      restored: [
        { path: "/w/a.txt", action: "restored", bytesNow: 2, bytesAfter: 2 },
        { path: "/w/b.txt", action: "removed", bytesNow: 2, bytesAfter: null },
        { path: "/w/c.txt", action: "recreated", bytesNow: null, bytesAfter: 2 },
      ],
      unchanged: [],
      conflicts: [],
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
    })
    expect(files.tree()).toEqual({ "/w/a.txt": [...text("a0")], "/w/c.txt": [...text("c0")], "/w/other-session.txt": [...text("x")] })
    const rewinds = store.entries.filter((e) => e.tool === REWIND_TOOL)
    expect(rewinds.map((e) => [e.path, e.turn])).toEqual([
      ["/w/a.txt", "turn_2"],
      ["/w/b.txt", "turn_2"],
      ["/w/c.txt", "turn_2"],
    ])
    expect(store.entries.filter((e) => e.turn === "turn_1").every((e) => e.undoneBy !== null)).toBe(true)
    expect(store.entries.filter((e) => e.turn === "turn_0" || e.session === "ses_2").every((e) => e.undoneBy === null)).toBe(true)
    // A rewind is one undoable change: the next undo takes it back, and the turn's changes stand again.
    const before = content("/w/a.txt")
    expect((await journal.undo("/w/a.txt")).reverted.tool).toBe(REWIND_TOOL)
    expect(content("/w/a.txt")).not.toBe(before)
    expect(store.entries.filter((e) => e.turn === "turn_1" && e.path === "/w/a.txt").every((e) => e.undoneBy === null)).toBe(true)
  })

  it("previews without writing or journaling; a rewind of that preview writes only while nothing moved since", async () => {
    const since = await turn()
    const entries = store.entries.length
    const tree = files.tree()
    const preview = await journal.rewind({ session: "ses_1", since, preview: true })
    expect(preview.restored.map((r) => [r.path, r.action])).toEqual([
      ["/w/a.txt", "restored"],
      ["/w/b.txt", "removed"],
      ["/w/c.txt", "recreated"],
    ])
    expect(files.tree()).toEqual(tree)
    expect(store.entries).toHaveLength(entries)
    expect((await journal.rewind({ session: "ses_1", since, preview: true })).fingerprint, "the same plan, the same fingerprint").toBe(preview.fingerprint)

    // Somebody changes a file between the preview and the user's allow: the plan moved, nothing is written.
    files.files.set("/w/b.txt", text("theirs"))
    const moved = await refusal(journal.rewind({ session: "ses_1", since, expect: preview.fingerprint }))
    expect(moved).toBeInstanceOf(RewindMovedError)
    expect(moved.message).toBe("the session's files changed since the rewind was shown to the user: nothing was rewound")
    expect((moved as RewindMovedError).plan.conflicts.map((c) => c.path)).toEqual(["/w/b.txt"])
    expect(content("/w/a.txt")).toBe("a2")
    expect(store.entries).toHaveLength(entries)

    // The new plan, allowed as shown, is the one carried out.
    const report = await journal.rewind({ session: "ses_1", since, expect: (moved as RewindMovedError).plan.fingerprint })
    expect(report.restored.map((r) => r.path)).toEqual(["/w/a.txt", "/w/c.txt"])
    expect(content("/w/a.txt")).toBe("a0")
    expect(content("/w/b.txt")).toBe("theirs")
  })

  it("reports a file changed since by someone else as a conflict and leaves it alone; force overwrites it", async () => {
    const since = await turn()
    files.files.set("/w/a.txt", text("theirs"))
    const report = await journal.rewind({ session: "ses_1", since })
    expect(report.restored.map((r) => r.path)).toEqual(["/w/b.txt", "/w/c.txt"])
    expect(report.conflicts).toEqual([
      {
        path: "/w/a.txt",
        why: expect.stringMatching(
          /^its content is not what Forge left there \(now 6 bytes\) since the last change Forge journaled \(forge_write at .*\): somebody else changed it; it was left alone: look at it, or rewind with force to overwrite it$/,
        ),
        bytes: 6,
      },
    ])
    expect(content("/w/a.txt")).toBe("theirs")
    expect(store.entries.filter((e) => e.path === "/w/a.txt" && e.turn === "turn_1").every((e) => e.undoneBy === null)).toBe(true)

    const forced = await journal.rewind({ session: "ses_1", since, force: true })
    expect(forced.conflicts).toEqual([])
    expect(forced.restored).toEqual([
      { path: "/w/a.txt", action: "restored", bytesNow: 6, bytesAfter: 2, overrode: expect.stringMatching(/^its content is not what Forge left there/) },
    ])
    expect(forced.unchanged).toEqual(["/w/b.txt", "/w/c.txt"])
    expect(content("/w/a.txt")).toBe("a0")
    // What was overwritten is journaled, so it is not lost.
    const rewind = store.entries.filter((e) => e.tool === REWIND_TOOL && e.path === "/w/a.txt").at(-1)
    expect(new TextDecoder().decode(store.blobs.get(rewind?.before ?? ""))).toBe("theirs")
  })

  it("counts a file already back as it was as unchanged, and its changes as undone", async () => {
    await change("/w/a.txt", "a0", { turn: "turn_0" })
    const since = clock.time + 1
    await change("/w/a.txt", "a1", { turn: "turn_1" })
    await change("/w/a.txt", "a0", { turn: "turn_1" })
    const report = await journal.rewind({ session: "ses_1", since })
    expect(report).toMatchObject({ restored: [], unchanged: ["/w/a.txt"], conflicts: [] })
    // The turn's changes no longer stand, and the rewind changed nothing to take back: undo goes to the change before the turn.
    expect((await journal.undo("/w/a.txt")).reverted.turn).toBe("turn_0")
  })

  it("brings back what an undo in the turn took away: forge_undo then walks on from there", async () => {
    await change("/w/a.txt", "one", { turn: "turn_0" })
    await change("/w/a.txt", "two", { turn: "turn_0", tool: "forge_patch" })
    clock.time += 1_000
    const since = clock.time
    await journal.undo("/w/a.txt", { session: "ses_1", turn: "turn_1" })
    expect(content("/w/a.txt")).toBe("one")
    const report = await journal.rewind({ session: "ses_1", since, turn: "turn_2" })
    expect(report.restored).toEqual([{ path: "/w/a.txt", action: "restored", bytesNow: 3, bytesAfter: 3 }])
    expect(content("/w/a.txt")).toBe("two")
    // The next undo takes the rewind back (the undo in the turn stands again), the one after takes back the write.
    expect((await journal.undo("/w/a.txt")).reverted.tool).toBe(REWIND_TOOL)
    expect(content("/w/a.txt")).toBe("one")
    expect((await journal.undo("/w/a.txt")).reverted.tool).toBe("forge_write")
    expect(files.files.has("/w/a.txt")).toBe(false)
  })

  it("keeps a change made and undone inside the turn undone: only changes before it stand again", async () => {
    await change("/w/a.txt", "zero", { turn: "turn_0" })
    clock.time += 1_000
    const since = clock.time
    await change("/w/a.txt", "one", { turn: "turn_1", tool: "forge_patch" })
    await journal.undo("/w/a.txt", { session: "ses_1", turn: "turn_1" })
    await change("/w/a.txt", "two", { turn: "turn_1", tool: "forge_patch" })
    await journal.rewind({ session: "ses_1", since, turn: "turn_2" })
    expect(content("/w/a.txt")).toBe("zero")
    expect(store.entries.filter((e) => e.turn === "turn_1").every((e) => e.undoneBy !== null)).toBe(true)
    // Undoing the rewind gives the turn's end back; then its last patch goes, and the one it had undone stays undone.
    expect((await journal.undo("/w/a.txt")).reverted.tool).toBe(REWIND_TOOL)
    expect(content("/w/a.txt")).toBe("two")
    expect((await journal.undo("/w/a.txt")).reverted.tool).toBe("forge_patch")
    expect(content("/w/a.txt")).toBe("zero")
    expect((await journal.undo("/w/a.txt")).reverted.turn).toBe("turn_0")
  })

  it("writes nothing and journals nothing when nothing was changed since", async () => {
    await change("/w/a.txt", "a0")
    expect(await journal.rewind({ session: "ses_1", since: clock.time + 1 })).toMatchObject({ restored: [], unchanged: [], conflicts: [] })
    expect(await journal.rewind({ session: "ses_other", since: 0 })).toMatchObject({ restored: [], unchanged: [], conflicts: [] })
    expect(store.entries).toHaveLength(1)
  })

  it("puts back the files already restored when a write fails, and journals nothing", async () => {
    const since = await turn()
    files.failing.add("/w/c.txt")
    const entries = structuredClone(store.entries)
    const error = await refusal(journal.rewind({ session: "ses_1", since }))
    expect(error.message).toMatch(
      /^rewind stopped: could not restore \/w\/c\.txt: EACCES.*; every file it had written was put back as it was\. Nothing was journaled\.$/,
    )
    expect(error.path).toBe("/w/c.txt")
    expect(content("/w/a.txt")).toBe("a2")
    expect(content("/w/b.txt")).toBe("b1")
    expect(files.files.has("/w/c.txt")).toBe(false)
    expect(store.entries).toEqual(entries)
  })

  it("puts every file back when the rewind cannot be journaled", async () => {
    const since = await turn()
    const tree = files.tree()
    store.failNextAppend = new Error("disk I/O error")
    const error = await refusal(journal.rewind({ session: "ses_1", since }))
    expect(error.message).toMatch(/^could not journal the rewind: disk I\/O error; every file it had written was put back as it was/)
    expect(files.tree()).toEqual(tree)
  })

  it("refuses a since that is no time", async () => {
    expect((await refusal(journal.rewind({ session: "s", since: Number.NaN }))).message).toMatch(/since must be a time in epoch milliseconds/)
  })
})
