// The undo journal's undo, over in-memory ports: chains walked back to nothing, refusals that write nothing (a file
// changed since, a damaged journal), and failures that leave the disk and the journal as they were.
import { beforeEach, describe, expect, it } from "vitest"
import { UNDO_TOOL } from "../../../services/files/journal"
import { change, content, files, freshJournal, journal, refusal, store, text } from "./journal.helpers"

beforeEach(freshJournal)

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
