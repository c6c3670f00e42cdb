// Journal storage: 1,000 small forge_patch edits of one ~100 KB file through ForgeFiles, each version journaled once
// (as a delta against the one before, or compressed);
// the blob bytes and the database on disk against the sum of every version's size, and the time per journaled edit
// against a bare atomic write of the same bytes (the order flipping every edit).
import { readFile, writeFile } from "node:fs/promises"
import path from "node:path"
import { writeFileAtomic } from "../adapters/workspace/atomic.write"
import { type BenchFiles, medianMs, timeNs } from "./tools.harness"

export const EDITS = 1_000
const LINES = 1_300
const BLOB_BYTES_CALLS = 5

export interface JournalFigures {
  fileBytes: number
  /** Nanoseconds per edit, in edit order. */
  forge: Float64Array
  bare: Float64Array
  /** Every version's size summed (the original and each edit's result): what a copy per version costs. */
  versionBytes: number
  versions: number
  /** What a journal keeping a copy before and a copy after every edit would hold. */
  pairBytes: number
  blobBytes: number
  database: { db: number; wal: number }
  entries: number
  /** Median ms of store.blobBytes() after the edits: the size ForgeFiles asks for after every edit, to keep the bound. */
  blobBytesMs: number
}

const row = (i: number, value: string): string => `  row_${String(i).padStart(4, "0")}: { value: "${value}", note: "lorem ipsum dolor sit amet, consectetur" },`

export async function measureJournal(dir: string, bench: BenchFiles, problems: string[]): Promise<JournalFigures> {
  const file = path.join(dir, "data.ts")
  const bareFile = path.join(dir, "bare.ts")
  const lines = Array.from({ length: LINES }, (_, i) => row(i, "v0"))
  const text = (): string => `export const table = {\n${lines.join("\n")}\n}\n`
  const original = text()
  await writeFile(file, original)
  await writeFile(bareFile, original)
  const blobsBefore = await bench.journal.blobBytes()
  let versionBytes = Buffer.byteLength(text())
  let pairBytes = 0
  const forge = new Float64Array(EDITS)
  const bare = new Float64Array(EDITS)
  for (let edit = 0; edit < EDITS; edit++) {
    // Edit n sets one row (taken in a stride over the file) to the value vn: no two versions are alike.
    const at = (edit * 37) % LINES
    const before = lines[at] as string
    const after = row(at, `v${edit + 1}`)
    const previous = Buffer.byteLength(text())
    lines[at] = after
    const bytes = Buffer.from(text())
    versionBytes += bytes.length
    pairBytes += previous + bytes.length
    const runForge = async (): Promise<void> => {
      forge[edit] = await timeNs(() =>
        bench.files.patch(file, [{ operation: "replace", search: before, content: after }], { session: "bench-journal", turn: `turn-${edit}` }),
      )
    }
    const runBare = async (): Promise<void> => {
      bare[edit] = await timeNs(() => writeFileAtomic(bareFile, bytes))
    }
    if (edit % 2 === 0) {
      await runForge()
      await runBare()
    } else {
      await runBare()
      await runForge()
    }
    if (edit % 100 === 99 && !(await readFile(file)).equals(bytes)) problems.push(`journal: after edit ${edit + 1} the file is not what the edits make it`)
  }
  const entries = await bench.journal.listByPath(file)
  if (entries.length !== EDITS) problems.push(`journal: ${entries.length} entries stand for the file, not ${EDITS}`)
  const blobBytes = (await bench.journal.blobBytes()) - blobsBefore
  // Deltas and compression must give every version back byte for byte: the oldest one standing is read back whole.
  const oldest = entries.at(-1)
  const first = oldest?.before === null || oldest === undefined ? undefined : await bench.journal.readBlob(oldest.before)
  if (first === undefined || !Buffer.from(first).equals(Buffer.from(original)))
    problems.push("journal: the first version read back from the journal is not the original file byte for byte")
  const sizing = new Float64Array(BLOB_BYTES_CALLS)
  for (let i = 0; i < BLOB_BYTES_CALLS; i++) sizing[i] = await timeNs(() => bench.journal.blobBytes())
  return {
    blobBytesMs: medianMs(sizing),
    fileBytes: Buffer.byteLength(text()),
    forge,
    bare,
    versionBytes,
    pairBytes,
    versions: EDITS + 1,
    blobBytes,
    database: bench.databaseBytes(),
    entries: entries.length,
  }
}
