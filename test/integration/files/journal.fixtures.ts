// What the undo journal checks share: the forge file tools' files on disk, a clock, a journal over the workspace
// database in a check's folder, and the steps a check takes (change a file as a tool does, read rows and files back).
import path from "node:path"
import { SqliteJournalStore } from "../../../adapters/storage/journal.repository"
import { type LifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { fsToolFiles } from "../../../adapters/workspace/tool.files"
import { FileJournal } from "../../../services/files/journal"
import type { JournalFiles } from "../../../services/files/journal.ports"

/** The forge file tools' own files on disk: the journal checks run against what the tools use. */
export const diskFiles: JournalFiles = fsToolFiles

interface Setup {
  db: LifecycleStore
  store: SqliteJournalStore
  journal: FileJournal
  /** The workspace's files live here. */
  work: string
}

/** The clock's last reading: the next entry is stamped `tick + 1` (what a rewind's `since` names). */
export let tick = 1_700_000_000_000
export const clock = { now: () => ++tick }

/** A journal over the workspace database in `dir`; the workspace's files go under `dir`/work. */
export async function open(dir: string): Promise<Setup> {
  const db = await openLifecycleStore(dir)
  const store = new SqliteJournalStore(db.connection)
  return { db, store, journal: new FileJournal({ store, files: diskFiles, clock }), work: path.join(dir, "work") }
}

/** What a Forge tool does: change the file on disk (undefined removes it), then journal the change. */
export async function change(journal: FileJournal, file: string, after: Uint8Array | string | undefined, turn = "turn_1", session = "ses_1"): Promise<void> {
  const before = await diskFiles.read(file)
  const bytes = typeof after === "string" ? Buffer.from(after) : after
  if (bytes === undefined) await diskFiles.remove(file)
  else await diskFiles.write(file, bytes)
  await journal.record({ session, turn, tool: bytes === undefined ? "forge_remove" : "forge_write", path: file, before, after: bytes })
}

/** The rows a query reads from the workspace database. */
export async function rows(db: LifecycleStore, query: string): Promise<unknown[][]> {
  return db.connection.exclusive(() => db.connection.driver.all(query))
}

/** A file's text on disk (latin1), undefined when it is missing. */
export async function onDisk(file: string): Promise<string | undefined> {
  const bytes = await diskFiles.read(file)
  return bytes === undefined ? undefined : Buffer.from(bytes).toString("latin1")
}

/** A version of a large file: the same bytes with a few of them changed. */
export function version(base: Buffer, n: number): Buffer {
  const copy = Buffer.from(base)
  for (let i = 0; i < 8; i++) copy[(n * 7919 + i * 104_729) % copy.length] = n
  return copy
}
