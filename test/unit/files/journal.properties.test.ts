// The undo journal's promise as a property: any sequence of writes, edits and removals over a few files, each
// journaled, followed by as many undos per file as it had operations (in any order across files), gives back the
// tree it started from byte for byte — binary and empty files included. Undos past the journal's start are refused
// as "nothing to undo" and change nothing.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { FileJournal, JournalError, UNDO_TOOL } from "../../../services/files/journal"
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
})
