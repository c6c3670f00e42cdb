// Which journal entries of one file still stand. An undo reverts one entry; a rewind reverts every entry of its range
// (the ones an undo inside the range had already taken back too). An entry stands unless an entry that stands
// reverts it, so a revert that is itself taken back (a rewind past an undo, a rewind past a rewind) lets what it
// reverted stand again, however deep the nesting, with nothing rewritten.

/** One revert: `reverter` (an undo or a rewind entry) took `reverted` back. */
export interface JournalRevert {
  reverter: number
  reverted: number
}

/**
 * Per entry id, the revert that keeps it undone (the newest standing reverter), or null when it stands. A reverter
 * no longer in `ids` (pruned) still counts: what it took back stays taken back, so nothing is believed on disk that
 * may not be. `ids` must hold every entry of the file the journal still has.
 */
export function undoneByOf(ids: readonly number[], reverts: readonly JournalRevert[]): Map<number, number | null> {
  const present = new Set(ids)
  const reverters = new Map<number, number[]>()
  for (const { reverter, reverted } of reverts) {
    const list = reverters.get(reverted) ?? []
    list.push(reverter)
    reverters.set(reverted, list)
  }
  const undoneBy = new Map<number, number | null>()
  // A reverter is always newer than what it reverts: newest first, each one's reverters are decided before it.
  for (const id of [...present].sort((a, b) => b - a)) {
    const by = (reverters.get(id) ?? []).sort((a, b) => b - a).find((r) => !present.has(r) || undoneBy.get(r) === null)
    undoneBy.set(id, by ?? null)
  }
  return undoneBy
}
