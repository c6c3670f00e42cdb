// What the journal.*.test.ts policy files share: one undo journal over the in-memory ports of journal.fakes.ts, and
// what a Forge tool does to it. The journal and its ports are live bindings: each test file runs
// `beforeEach(freshJournal)`, so every test starts from an empty disk and an empty journal.
import { expect } from "vitest"
import { FileJournal } from "../../../services/files/journal"
import { JournalError } from "../../../services/files/journal.errors"
import { MemoryFiles, MemoryJournalStore, StepClock } from "./journal.fakes"

export const text = (value: string): Uint8Array => new TextEncoder().encode(value)

export let store: MemoryJournalStore
export let files: MemoryFiles
export let clock: StepClock
export let journal: FileJournal

/** An empty journal over empty fakes. */
export function freshJournal(): void {
  store = new MemoryJournalStore()
  files = new MemoryFiles()
  clock = new StepClock()
  journal = new FileJournal({ store, files, clock })
}

/** What a Forge tool does: change the file (undefined removes it), then journal the change. */
export async function change(path: string, after: string | Uint8Array | undefined, by: { session?: string; turn?: string; tool?: string } = {}) {
  const before = await files.read(path)
  const bytes = typeof after === "string" ? text(after) : after
  if (bytes === undefined) await files.remove(path)
  else await files.write(path, bytes)
  return journal.record({ session: by.session ?? "ses_1", turn: by.turn ?? "turn_1", tool: by.tool ?? "forge_write", path, before, after: bytes })
}

export const content = (path: string): string | undefined => {
  const bytes = files.files.get(path)
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes)
}

export async function refusal(promise: Promise<unknown>): Promise<JournalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(JournalError)
  return error as JournalError
}
