// The undo journal's pruning, over in-memory ports: whole turns dropped oldest first until the blobs fit, never the
// newest, and a rewind across what was dropped says it could not go that far.
import { beforeEach, describe, expect, it } from "vitest"
import { change, clock, files, freshJournal, journal, refusal, store } from "./journal.helpers"

beforeEach(freshJournal)

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
    expect(across.restored).toEqual([{ path: "/w/a.bin", action: "restored", bytesNow: 1024, bytesAfter: 1024 }])
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
