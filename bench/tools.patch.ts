// forge_patch on a 10 MiB text file: one prepend near the start and one replace near the end, through ForgeFiles
// (read, exact-match engine, atomic write, both versions journaled in SQLite), against `sed -i` making the same edit
// on a copy, and against the same engine with no journal (readFile, applyPatches, writeFileAtomic).
import { readFile, writeFile } from "node:fs/promises"
import path from "node:path"
import { writeFileAtomic } from "../adapters/workspace/atomic.write"
import { applyPatches } from "../services/files/patch.apply"
import type { Patch } from "../services/files/patch.schema"
import { type BenchFiles, type Contender, flushDisk, rounds, runProcess, timeNs } from "./tools.harness"

const TARGET_BYTES = 10 * 1024 * 1024
const WARM_UP = 1
const HEAD = "HEAD_ANCHOR = true"
const INSERTED = "INSERTED = 1\n"
const TAIL_OLD = 'TAIL_ANCHOR = "old"'
const TAIL_NEW = 'TAIL_ANCHOR = "new"'

const PATCHES: Patch[] = [
  { operation: "prepend", search: HEAD, content: INSERTED },
  { operation: "replace", search: TAIL_OLD, content: TAIL_NEW },
]
// GNU sed: `i text` inserts a line before the matching one, `s` replaces; both anchored to whole lines.
const SED_SCRIPT = ["-e", `/^${HEAD}$/i ${INSERTED.trimEnd()}`, "-e", `s/^${TAIL_OLD}$/${TAIL_NEW}/`]

export interface PatchFigures {
  labels: string[]
  samples: Float64Array[]
  fileBytes: number
  lines: number
  /** Blob bytes the forge runs added to the journal, and what they should have added (both versions of every run). */
  journaled: { stored: number; expected: number; runs: number }
}

/** ~10 MiB of source-like lines, the head anchor 5 lines in, the tail anchor 100 lines before the end. */
function body(): { text: string; lines: number } {
  const lines: string[] = []
  let bytes = 0
  for (let i = 0; bytes < TARGET_BYTES; i++) {
    const line = `const value_${String(i).padStart(6, "0")} = compute(${i}, "lorem ipsum dolor sit amet, consectetur");`
    lines.push(line)
    bytes += line.length + 1
  }
  lines.splice(5, 0, HEAD)
  lines.splice(lines.length - 100, 0, TAIL_OLD)
  return { text: `${lines.join("\n")}\n`, lines: lines.length + 1 }
}

export async function measurePatch(dir: string, bench: BenchFiles, count: number, problems: string[]): Promise<PatchFigures> {
  const { text: base, lines } = body()
  // Every round's file starts with its own line, so both versions are new content the journal has not seen.
  const original = (round: number): string => `# round ${round}\n${base}`
  const expected = (round: number): string => original(round).replace(HEAD, `${INSERTED}${HEAD}`).replace(TAIL_OLD, TAIL_NEW)
  const blobsBefore = await bench.journal.blobBytes()

  /** Writes the round's original (untimed), flushes the disk, times the edit, checks the result against the expectation. */
  const contender = (label: string, file: string, edit: (file: string, round: number) => Promise<unknown>): Contender => ({
    label,
    async run(round) {
      await writeFile(file, original(round))
      flushDisk(dir)
      const ns = await timeNs(() => edit(file, round))
      const got = await readFile(file, "utf8")
      if (got !== expected(round))
        problems.push(`patch: ${label} left a different file in round ${round} (${got.length} vs ${expected(round).length} characters)`)
      return ns
    },
  })
  const forge = contender("forge_patch (ForgeFiles.patch, journaled)", path.join(dir, "forge.txt"), (file, round) =>
    bench.files.patch(file, PATCHES, { session: "bench-patch", turn: `turn-${round}` }),
  )
  const sed = contender("sed -i (same edit, GNU sed)", path.join(dir, "sed.txt"), async (file) => {
    const run = await runProcess("sed", ["-i", ...SED_SCRIPT, file], dir)
    if (run.code !== 0) problems.push(`patch: sed exited with ${run.code}: ${run.stderr.trim()}`)
  })
  const bare = contender("node, no journal: readFile + applyPatches + atomic write", path.join(dir, "bare.txt"), async (file) => {
    const text = await readFile(file, "utf8")
    await writeFileAtomic(file, applyPatches(text, PATCHES).text)
  })
  const contenders = [forge, sed, bare]
  const samples = await rounds(contenders, count, WARM_UP)
  // Every forge run (warm-up included) journals the round's original and its patched version, each new.
  const runs = count + WARM_UP
  let expectedBlobs = 0
  for (let round = -WARM_UP; round < count; round++) expectedBlobs += Buffer.byteLength(original(round)) + Buffer.byteLength(expected(round))
  return {
    labels: contenders.map((c) => c.label),
    samples,
    fileBytes: Buffer.byteLength(original(0)),
    lines,
    journaled: { stored: (await bench.journal.blobBytes()) - blobsBefore, expected: expectedBlobs, runs },
  }
}
