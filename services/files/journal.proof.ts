// The proof undo and rewind need before they write a file: that it held exactly what Forge left there at every step
// since the change they take back. The journal's entries of the path (from every session and process) form a chain:
// each one's `before` must be the previous one's `after`, none may be a change Forge only saw (a shell command's), and
// the disk must hold the newest one's `after`. Any gap is a change somebody else made: no proof, so a conflict.
import { when } from "./journal.content"
import type { JournalEntry } from "./journal.ports"

export interface ProofInput {
  /** Every entry of the path, oldest first (JournalStore.history). */
  history: readonly JournalEntry[]
  /** The first entry to be taken back: the chain is proved from it on. */
  from: number
  /** The hash of what the disk holds now (stateHash). */
  diskHash: string | null
  /** How the disk differs from an expected hash, in words (journal.content's `difference`). */
  differs: (expected: string | null) => string
  /** When given, an entry of another session in the chain is a change of somebody else's (a rewind is one session's). */
  session?: string
}

/** Why the chain does not prove the file holds what Forge left there; undefined when it does. */
export function proofBreak(input: ProofInput): string | undefined {
  const chain = input.history.filter((entry) => entry.id >= input.from)
  let previous: JournalEntry | undefined
  for (const entry of chain) {
    if (entry.observed) return `${entry.tool} changed it at ${when(entry.at)}, outside Forge's file tools`
    if (input.session !== undefined && entry.session !== input.session)
      return `another session (${entry.session}) changed it with ${entry.tool} at ${when(entry.at)}`
    if (previous !== undefined && entry.before !== previous.after)
      return `it was changed outside Forge between ${previous.tool} at ${when(previous.at)} and ${entry.tool} at ${when(entry.at)}`
    previous = entry
  }
  if (previous !== undefined && input.diskHash !== previous.after)
    return `${input.differs(previous.after)} since the last change Forge journaled (${previous.tool} at ${when(previous.at)}): somebody else changed it`
  return undefined
}
