// The undo journal's policy over in-memory ports: undo chains walked back to nothing, refusals that write nothing,
// rewinds with conflicts (and forced), failures that leave the disk and the journal as they were, pruning by turns.
import { beforeEach, describe, expect, it } from "vitest"
import { FileJournal, REWIND_TOOL, UNDO_TOOL } from "../../../services/files/journal"
import { JournalError } from "../../../services/files/journal.errors"
import { MemoryFiles, MemoryJournalStore, StepClock } from "./journal.fakes"

const text = (value: string): Uint8Array => new TextEncoder().encode(value)

let store: MemoryJournalStore
let files: MemoryFiles
let clock: StepClock
let journal: FileJournal

beforeEach(() => {
  store = new MemoryJournalStore()
  files = new MemoryFiles()
  clock = new StepClock()
  journal = new FileJournal({ store, files, clock })
})

/** What a Forge tool does: change the file (undefined removes it), then journal the change. */
async function change(path: string, after: string | Uint8Array | undefined, by: { session?: string; turn?: string; tool?: string } = {}) {
  const before = await files.read(path)
  const bytes = typeof after === "string" ? text(after) : after
  if (bytes === undefined) await files.remove(path)
  else await files.write(path, bytes)
  return journal.record({ session: by.session ?? "ses_1", turn: by.turn ?? "turn_1", tool: by.tool ?? "forge_write", path, before, after: bytes })
}

const content = (path: string): string | undefined => {
  const bytes = files.files.get(path)
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes)
}

async function refusal(promise: Promise<unknown>): Promise<JournalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(JournalError)
  return error as JournalError
}

describe("record", () => {
  it("stores each content once and appends one entry; no entry when nothing changed", async () => {
    const entry = await change("/w/a.txt", "one")
    expect(entry).toMatchObject({ session: "ses_1", turn: "turn_1", message: null, tool: "forge_write", path: "/w/a.txt", before: null, undoneBy: null })
    expect(entry?.after).toMatch(/^[0-9a-f]{64}$/)
    expect(await change("/w/a.txt", "one")).toBeUndefined()
    expect(await journal.record({ session: "s", tool: "forge_remove", path: "/w/none", before: undefined, after: undefined })).toBeUndefined()
    await change("/w/a.txt", "two")
    await change("/w/a.txt", "one")
    expect(store.entries).toHaveLength(3)
    expect(store.blobs.size).toBe(2)
  })

  it("refuses a relative path, naming it", async () => {
    const error = await refusal(journal.record({ session: "s", tool: "forge_write", path: "a.txt", before: undefined, after: text("x") }))
    expect(error.message).toMatch(/^a\.txt is not an absolute path/)
    expect(error.path).toBe("a.txt")
    expect(store.entries).toEqual([])
  })

  it("appends the entry while the change is made, and takes it back, with the contents only it named, when the change fails", async () => {
    let made: () => void = () => undefined
    const writing = new Promise<void>((resolve) => {
      made = resolve
    })
    const recorded = journal.record({ session: "s", tool: "forge_write", path: "/w/a.txt", before: undefined, after: text("one") }, writing)
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect([store.blobs.size, store.entries.length]).toEqual([1, 1])
    await files.write("/w/a.txt", text("one"))
    made()
    expect((await recorded)?.after).toBe([...store.blobs.keys()][0])
    const failed = Promise.reject(new Error("EACCES: permission denied"))
    failed.catch(() => undefined)
    await expect(journal.record({ session: "s", tool: "forge_write", path: "/w/a.txt", before: text("one"), after: text("two") }, failed)).rejects.toThrow(
      /^EACCES: permission denied$/,
    )
    expect([store.blobs.size, store.entries.length]).toEqual([1, 1])
    expect((await journal.undo("/w/a.txt")).action).toBe("removed")
  })

  it("hashes a change's content before anew when the file no longer holds what was last recorded", async () => {
    await change("/w/a.txt", "one")
    files.files.set("/w/a.txt", text("ONE"))
    const edit = await change("/w/a.txt", "two")
    expect(edit?.before).not.toBe(store.entries[0]?.after)
    expect([...store.blobs.keys()]).toContain(edit?.before)
    expect(new TextDecoder().decode(await store.readBlob(edit?.before ?? ""))).toBe("ONE")
  })
})

describe("undo", () => {
  it("walks a chain back step by step: remove → edit → edit → create, then nothing to undo", async () => {
    await change("/w/a.txt", "v1")
    await change("/w/a.txt", "v2")
    await change("/w/a.txt", "v3")
    await change("/w/a.txt", undefined, { tool: "forge_remove" })

    const recreated = await journal.undo("/w/a.txt", { session: "ses_1", turn: "turn_2" })
    expect(recreated.action).toBe("recreated")
    expect(recreated.reverted.tool).toBe("forge_remove")
    expect(recreated.entry).toMatchObject({ tool: UNDO_TOOL, turn: "turn_2", before: null, after: recreated.reverted.before })
    expect(content("/w/a.txt")).toBe("v3")

    expect((await journal.undo("/w/a.txt")).action).toBe("restored")
    expect(content("/w/a.txt")).toBe("v2")
    expect((await journal.undo("/w/a.txt")).action).toBe("restored")
    expect(content("/w/a.txt")).toBe("v1")
    const removed = await journal.undo("/w/a.txt")
    expect(removed.action).toBe("removed")
    expect(files.files.has("/w/a.txt")).toBe(false)

    const error = await refusal(journal.undo("/w/a.txt"))
    expect(error.message).toMatch(/^nothing to undo for \/w\/a\.txt:/)
    expect(error.path).toBe("/w/a.txt")
    expect(store.entries.filter((e) => e.tool !== UNDO_TOOL).every((e) => e.undoneBy !== null)).toBe(true)
    expect(store.entries.filter((e) => e.tool === UNDO_TOOL).every((e) => e.undoneBy === null)).toBe(true)
  })

  it("has nothing to undo for a file the journal never saw, and names it", async () => {
    await change("/w/other.txt", "x")
    const error = await refusal(journal.undo("/w/never.txt"))
    expect(error.message).toContain("nothing to undo for /w/never.txt")
    expect(files.tree()).toEqual({ "/w/other.txt": [...text("x")] })
  })

  it("refuses a file changed since by someone else and writes nothing", async () => {
    await change("/w/a.txt", "mine")
    await change("/w/a.txt", "mine too")
    files.files.set("/w/a.txt", text("theirs"))
    const journalBefore = structuredClone(store.entries)
    const error = await refusal(journal.undo("/w/a.txt"))
    expect(error.message).toMatch(/^cannot undo the last change to \/w\/a\.txt \(forge_write at .*\): the file changed since by someone else/)
    expect(error.message).toContain("Nothing was written")
    expect(content("/w/a.txt")).toBe("theirs")
    expect(store.entries).toEqual(journalBefore)

    files.files.delete("/w/a.txt")
    expect((await refusal(journal.undo("/w/a.txt"))).message).toContain("it has been removed")
  })

  it("refuses to undo a removal when the file exists again", async () => {
    await change("/w/a.txt", "x")
    await change("/w/a.txt", undefined)
    files.files.set("/w/a.txt", text("new"))
    expect((await refusal(journal.undo("/w/a.txt"))).message).toContain("it was removed but exists again (3 bytes)")
    expect(content("/w/a.txt")).toBe("new")
  })

  it("walks on past a newer change after undos: undo, edit, undo, undo", async () => {
    await change("/w/a.txt", "1")
    await change("/w/a.txt", "2")
    await change("/w/a.txt", "3")
    await journal.undo("/w/a.txt")
    await change("/w/a.txt", "4")
    await journal.undo("/w/a.txt")
    expect(content("/w/a.txt")).toBe("2")
    await journal.undo("/w/a.txt")
    expect(content("/w/a.txt")).toBe("1")
  })

  it("puts the file back when the undo cannot be journaled", async () => {
    await change("/w/a.txt", "1")
    await change("/w/a.txt", "2")
    store.failNextAppend = new Error("database is locked")
    const error = await refusal(journal.undo("/w/a.txt"))
    expect(error.message).toMatch(/could not journal the undo of \/w\/a\.txt: database is locked; every file it had written was put back as it was/)
    expect(content("/w/a.txt")).toBe("2")
    expect(store.entries.every((e) => e.undoneBy === null)).toBe(true)
    expect((await journal.undo("/w/a.txt")).action).toBe("restored")
  })

  it("reports a write that fails, leaving file and journal as they were", async () => {
    await change("/w/a.txt", "1")
    await change("/w/a.txt", "2")
    files.failing.add("/w/a.txt")
    const error = await refusal(journal.undo("/w/a.txt"))
    expect(error.message).toMatch(/^could not undo \/w\/a\.txt: EACCES.*The file was left as it was\./)
    expect(content("/w/a.txt")).toBe("2")
    expect(store.entries).toHaveLength(2)
  })

  it("names a damaged journal (a missing blob) and writes nothing", async () => {
    await change("/w/a.txt", "1")
    const edit = await change("/w/a.txt", "2")
    store.blobs.delete(edit?.before ?? "")
    const error = await refusal(journal.undo("/w/a.txt"))
    expect(error.message).toMatch(/^the journal of \/w\/a\.txt is damaged: the content [0-9a-f]{64} that entry 2 \(forge_write at .*\) names is missing/)
    expect(content("/w/a.txt")).toBe("2")
  })
})

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
    expect(report).toEqual({
      restored: [
        { path: "/w/a.txt", action: "restored" },
        { path: "/w/b.txt", action: "removed" },
        { path: "/w/c.txt", action: "recreated" },
      ],
      unchanged: [],
      conflicts: [],
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
      },
    ])
    expect(content("/w/a.txt")).toBe("theirs")
    expect(store.entries.filter((e) => e.path === "/w/a.txt" && e.turn === "turn_1").every((e) => e.undoneBy === null)).toBe(true)

    const forced = await journal.rewind({ session: "ses_1", since, force: true })
    expect(forced.conflicts).toEqual([])
    expect(forced.restored).toEqual([{ path: "/w/a.txt", action: "restored", overrode: expect.stringMatching(/^its content is not what Forge left there/) }])
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
    expect(report).toEqual({ restored: [], unchanged: ["/w/a.txt"], conflicts: [] })
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
    expect(report.restored).toEqual([{ path: "/w/a.txt", action: "restored" }])
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
    expect(await journal.rewind({ session: "ses_1", since: clock.time + 1 })).toEqual({ restored: [], unchanged: [], conflicts: [] })
    expect(await journal.rewind({ session: "ses_other", since: 0 })).toEqual({ restored: [], unchanged: [], conflicts: [] })
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

describe("prune", () => {
  const kb = (fill: number) => new Uint8Array(1024).fill(fill)

  it("drops whole turns, oldest first, until the blobs fit, never the newest turn", async () => {
    await change("/w/a.bin", kb(1), { turn: "t1" })
    await change("/w/a.bin", kb(2), { turn: "t1" })
    await change("/w/b.bin", kb(3), { turn: "t2" })
    await change("/w/a.bin", kb(4), { turn: "t3" })
    expect(await store.blobBytes()).toBe(4 * 1024)

    expect(await journal.prune(4 * 1024)).toMatchObject({ totalBytes: 4096, dropped: [], droppedEntries: 0, freedBytes: 0 })

    const report = await journal.prune(3 * 1024)
    // t1 goes whole (both entries); kb(2) stays: t3's entry still names it as its before.
    expect(report.dropped.map((t) => t.turn)).toEqual(["t1"])
    expect(report).toMatchObject({ limitBytes: 3072, droppedEntries: 2, freedBytes: 1024, totalBytes: 3072 })
    expect(store.entries.map((e) => e.turn)).toEqual(["t2", "t3"])

    const all = await journal.prune(0)
    expect(all.dropped.map((t) => t.turn)).toEqual(["t2"])
    expect(store.entries.map((e) => e.turn)).toEqual(["t3"])
    expect(all.totalBytes).toBe(2048)
    // The newest turn still undoes.
    await journal.undo("/w/a.bin")
    expect(files.files.get("/w/a.bin")).toEqual(kb(2))
  })

  it("marks the newest dropped change per session, so a rewind across it says it could not go that far", async () => {
    await change("/w/a.bin", kb(1), { turn: "t1" })
    const t1 = clock.time
    await change("/w/a.bin", kb(2), { turn: "t2" })
    await journal.prune(0)
    expect(await store.prunedUntil("ses_1")).toBe(t1)
    expect(await store.prunedUntil("ses_2")).toBeUndefined()
    const across = await journal.rewind({ session: "ses_1", since: t1, turn: "t3" })
    expect(across.prunedUntil).toBe(t1)
    expect(across.restored).toEqual([{ path: "/w/a.bin", action: "restored" }])
    expect(files.files.get("/w/a.bin")).toEqual(kb(1))
    expect((await journal.rewind({ session: "ses_1", since: t1 + 1, turn: "t4" })).prunedUntil).toBeUndefined()
  })

  it("counts entries outside any turn one by one, and refuses a limit that is no size", async () => {
    await journal.record({ session: "s", tool: "edit", path: "/w/x", before: undefined, after: kb(1) })
    await journal.record({ session: "s", tool: "edit", path: "/w/y", before: undefined, after: kb(2) })
    const report = await journal.prune(1024)
    expect(report.dropped).toHaveLength(1)
    expect(store.entries.map((e) => e.path)).toEqual(["/w/y"])
    expect((await refusal(journal.prune(-1))).message).toMatch(/limit must be a whole number of bytes >= 0, got -1/)
  })
})

describe("the proof before a write", () => {
  it("refuses an undo whose chain has a gap, even when the disk holds what the change left", async () => {
    await change("/w/a.txt", "a")
    files.files.set("/w/a.txt", text("hand"))
    await change("/w/a.txt", "b", { tool: "forge_patch" })
    await journal.undo("/w/a.txt")
    expect(content("/w/a.txt")).toBe("hand")
    // Somebody puts back exactly what the first write left: the disk matches it, but the chain does not.
    files.files.set("/w/a.txt", text("a"))
    const error = await refusal(journal.undo("/w/a.txt"))
    expect(error.message).toMatch(/the file changed since by someone else — it was changed outside Forge between forge_write at .* and forge_patch at /)
    expect(content("/w/a.txt")).toBe("a")
  })

  it("takes another session's change inside the range as a conflict of this session's rewind; force overrides it", async () => {
    await change("/w/a.txt", "base", { turn: "turn_0" })
    clock.time += 1_000
    const since = clock.time
    await change("/w/a.txt", "mine", { turn: "turn_1" })
    await change("/w/a.txt", "theirs", { session: "ses_2", turn: "turn_9" })
    await change("/w/a.txt", "mine again", { turn: "turn_1" })
    const report = await journal.rewind({ session: "ses_1", since })
    expect(report.conflicts).toEqual([{ path: "/w/a.txt", why: expect.stringMatching(/^another session \(ses_2\) changed it with forge_write at /) }])
    expect(content("/w/a.txt")).toBe("mine again")
    const forced = await journal.rewind({ session: "ses_1", since, force: true })
    expect(forced.restored).toEqual([{ path: "/w/a.txt", action: "restored", overrode: expect.stringMatching(/^another session \(ses_2\)/) }])
    expect(content("/w/a.txt")).toBe("base")
    // The forced rewind is undoable: what it replaced comes back.
    expect((await journal.undo("/w/a.txt")).reverted.tool).toBe(REWIND_TOOL)
    expect(content("/w/a.txt")).toBe("mine again")
  })

  it("journals a seen change only for a file the journal knows, and only when it holds something else", async () => {
    expect(await journal.observe({ session: "ses_1", tool: "forge_shell", path: "/w/new.txt", now: { bytes: text("x"), mode: 0o100644 } })).toBeUndefined()
    await change("/w/a.txt", "a")
    expect(await journal.observe({ session: "ses_1", tool: "forge_shell", path: "/w/a.txt", now: { bytes: text("a"), mode: 0o100644 } })).toBeUndefined()
    files.files.set("/w/a.txt", text("sh"))
    const seen = await journal.observe({ session: "ses_1", tool: "forge_shell", path: "/w/a.txt", now: await files.state("/w/a.txt") })
    expect(seen).toMatchObject({ tool: "forge_shell", observed: true })
    // A rewind across it leaves the file alone; an undo refuses to take the shell's change back.
    const report = await journal.rewind({ session: "ses_1", since: 0 })
    expect(report.conflicts).toEqual([
      { path: "/w/a.txt", why: expect.stringMatching(/^forge_shell changed it at .*, outside Forge's file tools; it was left alone/) },
    ])
    expect((await refusal(journal.undo("/w/a.txt"))).message).toMatch(/forge_shell changed it at .* Forge does not undo it/)
    expect(content("/w/a.txt")).toBe("sh")
  })

  it("restores a removed file with its mode", async () => {
    await files.write("/w/run.sh", text("#!/bin/sh\n"), 0o100755)
    const script = await files.state("/w/run.sh")
    await files.remove("/w/run.sh")
    await journal.record({ session: "ses_1", tool: "forge_remove", path: "/w/run.sh", before: script?.bytes, beforeMode: script?.mode, after: undefined })
    await journal.undo("/w/run.sh")
    expect(files.modes.get("/w/run.sh")).toBe(0o100755)
  })
})
