// The plan of a rewind (FileJournal.rewind): for every file the session changed since a user turn, what it holds now
// and what it held before the turn's first change of it, or why it is left alone. Nothing is written here, so the same
// plan serves a preview the user decides on, and the rewind itself re-plans and writes only if nothing moved since.
import { createHash } from "node:crypto"
import { actionOf, difference, messageOf, stateHash } from "./journal.content"
import type { FileState, JournalEntry, JournalFiles, JournalStore } from "./journal.ports"
import { proofBreak } from "./journal.proof"
import type { RewindInput, RewindReport, RewindStep, RewoundPath } from "./journal.types"

export interface RewindPlanDeps {
  store: JournalStore
  files: JournalFiles
  /** The content a hash names (undefined for no file); throws for a damaged journal. */
  content(hash: string | null, entry: JournalEntry): Promise<Uint8Array | undefined>
}

export interface RewindPlan {
  /** What the rewind reports; `restored` lists the files it would write (their writes not done). */
  report: RewindReport
  /** Every file the rewind journals, the ones already as they were included. */
  steps: RewindStep[]
  /** The steps that write a file. */
  writes: RewindStep[]
}

/** Plans a rewind of the session's files to `input.since`; throws only for a journal that cannot be read. */
export async function planRewind(deps: RewindPlanDeps, input: RewindInput): Promise<RewindPlan> {
  const byPath = new Map<string, JournalEntry[]>()
  for (const entry of await deps.store.listBySession(input.session, input.since)) {
    const list = byPath.get(entry.path) ?? []
    list.push(entry)
    byPath.set(entry.path, list)
  }
  const report: RewindReport = { restored: [], unchanged: [], conflicts: [], fingerprint: "" }
  const prunedUntil = await deps.store.prunedUntil(input.session)
  if (prunedUntil !== undefined && prunedUntil >= input.since) report.prunedUntil = prunedUntil
  const steps: RewindStep[] = []
  for (const file of [...byPath.keys()].sort()) {
    const entries = byPath.get(file) ?? []
    const earliest = entries[0]
    if (earliest === undefined) continue
    let current: FileState | undefined
    try {
      current = await deps.files.state(file)
    } catch (error) {
      report.conflicts.push({ path: file, why: `it cannot be read (${messageOf(error)}); it was left alone`, bytes: null })
      continue
    }
    const currentHash = stateHash(current)
    const reverts = entries.filter((entry) => entry.undoneBy === null).map((entry) => entry.id)
    // The range's changes an undo inside it had taken back: covered too, so reverting that undo later (a rewind
    // to a turn before it) does not bring them back.
    const covers = entries.filter((entry) => entry.undoneBy !== null).map((entry) => entry.id)
    const step: RewindStep = {
      path: file,
      current: current?.bytes,
      currentHash,
      currentMode: current?.mode ?? null,
      target: undefined,
      targetHash: earliest.before,
      targetMode: earliest.beforeMode,
      reverts,
      covers,
    }
    if (currentHash === earliest.before) {
      // Already as it was: nothing to write, but the turn's changes no longer stand.
      report.unchanged.push(file)
      if (reverts.length > 0) steps.push({ ...step, target: current?.bytes, targetMode: step.currentMode })
      continue
    }
    const why = proofBreak({
      history: await deps.store.history(file),
      from: earliest.id,
      diskHash: currentHash,
      differs: (expected) => difference(current, expected),
      session: input.session,
    })
    if (why !== undefined) {
      if (input.force !== true) {
        report.conflicts.push({
          path: file,
          why: `${why}; it was left alone: look at it, or rewind with force to overwrite it`,
          bytes: current?.bytes.length ?? null,
        })
        continue
      }
      step.overrode = why
    }
    step.target = await deps.content(earliest.before, earliest)
    steps.push(step)
  }
  const writes = steps.filter((step) => step.currentHash !== step.targetHash)
  report.restored = writes.map(rewoundPath)
  report.fingerprint = fingerprintOf(report, writes)
  return { report, steps, writes }
}

function rewoundPath(step: RewindStep): RewoundPath {
  const rewound: RewoundPath = {
    path: step.path,
    action: actionOf(step.currentHash, step.targetHash),
    bytesNow: step.current?.length ?? null,
    bytesAfter: step.target?.length ?? null,
  }
  if (step.overrode !== undefined) rewound.overrode = step.overrode
  return rewound
}

/**
 * What the plan would do, as one short hash: each write (its path and both contents), each file already as it was and
 * each conflict. A rewind given a preview's fingerprint writes only while its plan still has it.
 */
function fingerprintOf(report: RewindReport, writes: readonly RewindStep[]): string {
  const facts = {
    writes: writes.map((step) => [step.path, step.currentHash, step.targetHash, step.overrode ?? null]),
    unchanged: report.unchanged,
    conflicts: report.conflicts.map((conflict) => conflict.path),
  }
  return createHash("sha256").update(JSON.stringify(facts)).digest("hex").slice(0, 16)
}
