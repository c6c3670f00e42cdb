// The one ledger mechanism: named, bounded, queryable ledgers on a LedgerStore. The same cases run on the in-memory
// store and on the SQLite store (a real database file), and a named ledger checks its entries on append and on read.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { openLedgerStore } from "../../../adapters/storage/ledger.repository"
import { Ledger, type LedgerDefinition } from "../../../services/lifecycle/ledger"
import { MemoryLedgerStore } from "../../../services/lifecycle/ledger.memory"
import type { LedgerRow, LedgerStore } from "../../../services/lifecycle/ledger.ports"

const dirs: string[] = []
const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const stores: Record<string, () => Promise<LedgerStore>> = {
  memory: async () => new MemoryLedgerStore(),
  sqlite: async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "forge-ledger-store-"))
    dirs.push(dir)
    const store = await openLedgerStore({ file: path.join(dir, "forge.db") })
    closers.push(() => store.close())
    return store
  },
}

const row = (ledger: string, n: number, extra: Partial<LedgerRow> = {}): LedgerRow => ({
  ledger,
  kind: n % 2 === 0 ? "even" : "odd",
  sessionId: `ses_${n % 3}`,
  subject: `thing_${n}`,
  at: 1_000 + n,
  entry: { n },
  ...extra,
})

for (const [name, open] of Object.entries(stores)) {
  describe(`ledger store: ${name}`, () => {
    it("keeps the newest rows of each ledger, oldest first, without touching another ledger's rows", async () => {
      const store = await open()
      for (let n = 1; n <= 3; n++) await store.append(row("other", n), 10)
      for (let n = 1; n <= 8; n++) await store.append(row("mine", n), 5)
      expect((await store.query({ ledger: "mine" })).map((r) => r.entry)).toEqual([4, 5, 6, 7, 8].map((n) => ({ n })))
      expect((await store.query({ ledger: "other" })).map((r) => r.subject)).toEqual(["thing_1", "thing_2", "thing_3"])
      const [first, second] = await store.query({ ledger: "mine" })
      expect(second?.id).toBeGreaterThan(first?.id ?? Number.POSITIVE_INFINITY)
    })

    it("answers by kind, session, subject and time, every filter together", async () => {
      const store = await open()
      for (let n = 1; n <= 9; n++) await store.append(row("mine", n), 100)
      const ns = async (query: Omit<Parameters<LedgerStore["query"]>[0], "ledger">) =>
        (await store.query({ ledger: "mine", ...query })).map((r) => (r.entry as { n: number }).n)
      expect(await ns({ kind: "even" })).toEqual([2, 4, 6, 8])
      expect(await ns({ sessionId: "ses_0" })).toEqual([3, 6, 9])
      expect(await ns({ subject: "thing_7" })).toEqual([7])
      expect(await ns({ since: 1_004, until: 1_006 })).toEqual([4, 5, 6])
      expect(await ns({ kind: "odd", since: 1_003, sessionId: "ses_2" })).toEqual([5])
      expect(await ns({ subject: "nothing" })).toEqual([])
      expect(await store.query({ ledger: "none" })).toEqual([])
    })

    it("keeps a row as it was appended, nulls included", async () => {
      const store = await open()
      const entry = { text: "ünïcode ' \" %_", list: [1, 2], nested: { none: null } }
      await store.append(row("mine", 1, { sessionId: null, subject: null, entry }), 5)
      entry.list.push(3)
      const [stored] = await store.query({ ledger: "mine" })
      expect(stored).toEqual({
        id: stored?.id,
        ledger: "mine",
        kind: "odd",
        sessionId: null,
        subject: null,
        at: 1_001,
        entry: { text: "ünïcode ' \" %_", list: [1, 2], nested: { none: null } },
      })
    })
  })
}

describe("a named ledger", () => {
  const noteSchema = z.strictObject({ at: z.int().nonnegative(), kind: z.enum(["said", "done"]), about: z.string().min(1), text: z.string() })
  type Note = z.output<typeof noteSchema>
  const notes: LedgerDefinition<Note> = {
    name: "notes",
    title: "note ledger",
    schema: noteSchema,
    keep: 3,
    indexOf: (note) => ({ kind: note.kind, sessionId: null, subject: note.about, at: note.at }),
  }
  const note = (n: number, kind: Note["kind"] = "said"): Note => ({ at: n, kind, about: `a${n % 2}`, text: `note ${n}` })

  it("indexes each entry by its definition and keeps its bound", async () => {
    const store = new MemoryLedgerStore()
    const ledger = new Ledger(store, notes)
    for (let n = 1; n <= 5; n++) await ledger.append(note(n, n === 4 ? "done" : "said"))
    expect(await ledger.query()).toEqual({ entries: [note(3), note(4, "done"), note(5)], problems: [] })
    expect((await ledger.query({ kind: "done" })).entries).toEqual([note(4, "done")])
    expect((await ledger.query({ subject: "a1" })).entries).toEqual([note(3), note(5)])
    expect((await store.query({ ledger: "notes" })).map((r) => [r.kind, r.subject, r.at])).toEqual([
      ["said", "a1", 3],
      ["done", "a0", 4],
      ["said", "a1", 5],
    ])
  })

  it("refuses an entry its schema does not take, naming the field, and stores nothing", async () => {
    const ledger = new Ledger(new MemoryLedgerStore(), notes)
    await expect(ledger.append({ ...note(1), kind: "shouted" as Note["kind"] })).rejects.toThrow(/invalid note ledger entry \(append\)[\s\S]*kind/)
    expect((await ledger.query()).entries).toEqual([])
  })

  it("reports a damaged row by id and field and still reads the rest", async () => {
    const store = new MemoryLedgerStore()
    const ledger = new Ledger(store, notes)
    await ledger.append(note(1))
    await store.append({ ledger: "notes", kind: "said", sessionId: null, subject: "a0", at: 2, entry: { ...note(2), text: 7 } }, 3)
    await ledger.append(note(3))
    const { entries, problems } = await ledger.query()
    expect(entries).toEqual([note(1), note(3)])
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^note ledger row 2:[\s\S]*text/)
  })
})
