// The undo journal's record, over in-memory ports: each content stored once and one entry per change, a relative path
// refused, an entry taken back when its change fails, and a before hashed anew when the file changed outside Forge.
import { beforeEach, describe, expect, it } from "vitest"
import { change, files, freshJournal, journal, refusal, store, text } from "./journal.helpers"

beforeEach(freshJournal)

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
