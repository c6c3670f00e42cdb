// The undo journal's promise as a property: any sequence of writes, edits and removals over a few files, each
// journaled, followed by as many undos per file as it had operations (in any order across files), gives back the
// tree it started from byte for byte — binary and empty files included. Undos past the journal's start are refused
// as "nothing to undo" and change nothing. And with undos and rewinds mixed in, turn after turn (a rewind past an undo,
// a rewind past a rewind): a rewind gives back the tree as the turn found it, and undoing everything still walks back
// to the tree the journal started from.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { FileJournal, REWIND_TOOL, UNDO_TOOL } from "../../../services/files/journal"
import { JournalError } from "../../../services/files/journal.errors"
import { MemoryFiles, MemoryJournalStore, StepClock } from "./journal.fakes"

const PATHS = ["/w/a.txt", "/w/b.bin", "/w/sub/c"] as const

/** Few distinct contents, so the same content recurs (no-op writes, shared blobs); empty and binary ones included. */
const bytes = fc.oneof(
  fc.constantFrom(new Uint8Array(0), Uint8Array.of(0), Uint8Array.of(0xff, 0x00, 0x0a), new TextEncoder().encode("x\r\n"), Uint8Array.of(0xc3)),
  fc.uint8Array({ maxLength: 24 }),
)

const operation = fc.record({
  path: fc.constantFrom(...PATHS),
  // A write creates or replaces the file; a removal of a missing file is an operation that changes nothing.
  kind: fc.constantFrom("write", "write", "remove"),
  bytes,
})

const initialTree = fc.record(
  Object.fromEntries(PATHS.map((path) => [path, fc.option(bytes, { nil: undefined })])) as Record<string, fc.Arbitrary<Uint8Array | undefined>>,
)

describe("undo journal properties", () => {
  it("as many undos per file as operations restore the tree byte for byte", async () => {
    await fc.assert(
      fc.asyncProperty(initialTree, fc.array(operation, { maxLength: 25 }), fc.array(fc.nat(), { maxLength: 40 }), async (initial, operations, order) => {
        const store = new MemoryJournalStore()
        const files = new MemoryFiles()
        const journal = new FileJournal({ store, files, clock: new StepClock() })
        for (const [path, content] of Object.entries(initial)) if (content !== undefined) files.files.set(path, Uint8Array.from(content))
        const start = files.tree()

        for (const [index, op] of operations.entries()) {
          const before = await files.read(op.path)
          const after = op.kind === "write" ? op.bytes : undefined
          if (after === undefined) await files.remove(op.path)
          else await files.write(op.path, after)
          await journal.record({
            session: "ses",
            turn: `turn_${index % 3}`,
            tool: op.kind === "write" ? "forge_write" : "forge_remove",
            path: op.path,
            before,
            after,
          })
        }

        // One undo per operation, shuffled across files by `order` (each file's own undos stay a walk backwards).
        const undos = operations.map((op, index) => ({ path: op.path, key: order[index] ?? index }))
        undos.sort((a, b) => a.key - b.key)
        for (const { path } of undos) {
          try {
            await journal.undo(path)
          } catch (error) {
            expect(error).toBeInstanceOf(JournalError)
            expect((error as JournalError).message).toContain(`nothing to undo for ${path}`)
          }
        }

        expect(files.tree()).toEqual(start)
        // Every change is undone, and no undo is.
        for (const entry of store.entries) expect(entry.undoneBy === null).toBe(entry.tool === UNDO_TOOL)
        // Each distinct content is stored once.
        expect(store.blobWrites).toBe(store.blobs.size)
      }),
      { numRuns: 300 },
    )
  })

  it("undos and rewinds mixed into the turns: a rewind gives the turn's tree back, undoing it the tree it found, and undoing all gives the start", async () => {
    const step = fc.oneof(
      { weight: 4, arbitrary: operation },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant("undo" as const), path: fc.constantFrom(...PATHS) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("rewind" as const), back: fc.nat(), undo: fc.boolean() }) },
    )
    await fc.assert(
      fc.asyncProperty(initialTree, fc.array(fc.array(step, { maxLength: 6 }), { maxLength: 6 }), async (initial, turns) => {
        const store = new MemoryJournalStore()
        const files = new MemoryFiles()
        const clock = new StepClock()
        const journal = new FileJournal({ store, files, clock })
        for (const [path, content] of Object.entries(initial)) if (content !== undefined) files.files.set(path, Uint8Array.from(content))
        const start = files.tree()
        /** Each turn's start: when it began and the tree it found. */
        const begun: { since: number; tree: ReturnType<MemoryFiles["tree"]> }[] = []

        for (const [index, steps] of turns.entries()) {
          const turn = `turn_${index}`
          begun.push({ since: clock.time + 1, tree: files.tree() })
          for (const s of steps) {
            if (s.kind === "undo") {
              await journal.undo(s.path, { session: "ses", turn }).catch((error: unknown) => {
                expect((error as Error).message).toContain(`nothing to undo for ${s.path}`)
              })
              continue
            }
            if (s.kind === "rewind") {
              const target = begun[s.back % begun.length]
              if (target === undefined) continue
              const found = files.tree()
              const report = await journal.rewind({ session: "ses", since: target.since, turn })
              expect(report.conflicts).toEqual([])
              expect(files.tree()).toEqual(target.tree)
              if (s.undo) {
                // A rewind is one undoable change: an undo of each file it wrote gives back the tree it found.
                for (const { path } of report.restored) expect((await journal.undo(path, { session: "ses", turn })).reverted.tool).toBe(REWIND_TOOL)
                expect(files.tree()).toEqual(found)
              }
              continue
            }
            const before = await files.read(s.path)
            const after = s.kind === "write" ? s.bytes : undefined
            if (after === undefined) await files.remove(s.path)
            else await files.write(s.path, after)
            await journal.record({ session: "ses", turn, tool: s.kind === "write" ? "forge_write" : "forge_remove", path: s.path, before, after })
          }
        }

        // Undo every file until nothing is left to undo: the tree the journal started from.
        for (const path of PATHS) {
          for (let guard = 0; guard < 200; guard++) {
            const done = await journal.undo(path).then(
              () => false,
              (error: unknown) => {
                expect((error as Error).message).toContain(`nothing to undo for ${path}`)
                return true
              },
            )
            if (done) break
          }
        }
        expect(files.tree()).toEqual(start)
      }),
      { numRuns: 300 },
    )
  })
})
