import { describe, expect, it } from "vitest"
import { undoneByOf } from "../../../services/files/journal.standing"

// What stands, from the reverts alone: an entry stands unless an entry that stands reverts it.

const edges = (...pairs: [number, number][]) => pairs.map(([reverter, reverted]) => ({ reverter, reverted }))
const standing = (ids: number[], reverts: ReturnType<typeof edges>) =>
  [...undoneByOf(ids, reverts)]
    .filter(([, by]) => by === null)
    .map(([id]) => id)
    .sort((a, b) => a - b)

describe("undoneByOf", () => {
  it("an undo takes one entry back; nothing reverted stands", () => {
    expect(standing([1, 2, 3], edges([3, 2]))).toEqual([1, 3])
    expect(undoneByOf([1, 2, 3], edges([3, 2])).get(2)).toBe(3)
  })

  it("a rewind past an undo lets what the undo took back stand again", () => {
    // 1 write, 2 patch, 3 undo of 2, 4 rewind reverting 3
    expect(standing([1, 2, 3, 4], edges([3, 2], [4, 3]))).toEqual([1, 2, 4])
  })

  it("a rewind covering a change an undo inside its range took back keeps it taken back, even once that rewind is reverted", () => {
    // 1 patch, 2 undo of 1, 3 rewind covering 1 and 2, 4 rewind reverting 3: the state before 3 is after 2 (1 undone).
    expect(standing([1, 2, 3], edges([2, 1], [3, 1], [3, 2]))).toEqual([3])
    expect(standing([1, 2, 3, 4], edges([2, 1], [3, 1], [3, 2], [4, 3]))).toEqual([2, 4])
  })

  it("a pruned reverter still counts: what it took back stays taken back", () => {
    expect(standing([2, 3], edges([1, 2], [9, 3]))).toEqual([])
  })

  it("names the newest standing reverter", () => {
    expect(undoneByOf([1, 2, 3, 4], edges([2, 1], [4, 1], [3, 2])).get(1)).toBe(4)
    expect(undoneByOf([1, 2, 3], edges([2, 1], [3, 2])).get(1)).toBe(null)
  })
})
