// A version of a file as the bytes it shares with the version before it (copies of ranges of that base) and the bytes
// it does not (literals), in the order they come. Found by a common prefix and suffix, then, in what lies between, a
// 64-byte anchor looked up in the base near where it would sit and the match grown around it, on both sides of it in
// turn: a few edits anywhere in a large file cost a few pieces, in time linear in the file. Bounded (regions and bytes
// searched), so content the base does not explain becomes literal and the caller stores it otherwise.

/** Bytes compared at a time while growing a common run: from CHUNK, doubling while they match, back on a mismatch. */
const CHUNK = 4096
const MAX_CHUNK = 1024 * 1024
/** The anchor looked up in the base: long enough that repeated text rarely matches it by chance. */
const ANCHOR = 64
/** Regions of this size or less are taken as literal without looking for an anchor. */
const SMALL_REGION = 1024
/** How far from where an anchor would sit it is looked for first. */
const NEAR = 64 * 1024
/** Regions split at most, and bytes of base searched at most (a multiple of the new version's size). */
const MAX_REGIONS = 64
const SEARCH_FACTOR = 4

/** A stretch of the new version: `literal` bytes of its own, then `copyLength` bytes of the base from `copyFrom`. */
export interface Piece {
  literalFrom: number
  literalTo: number
  copyFrom: number
  copyLength: number
}

/** Bytes the base and the new version share from (b, n) forward, at most `max`. */
export function forwardRun(base: Buffer, b: number, next: Buffer, n: number, max: number): number {
  let run = 0
  for (let size = CHUNK; run < max; ) {
    const step = Math.min(size, max - run)
    if (base.compare(next, n + run, n + run + step, b + run, b + run + step) === 0) {
      run += step
      size = Math.min(2 * size, MAX_CHUNK)
    } else if (step > CHUNK) size = CHUNK
    else {
      while (run < max && base[b + run] === next[n + run]) run++
      break
    }
  }
  return run
}

/** Bytes the base and the new version share backward from (b, n) (exclusive ends), at most `max`. */
export function backwardRun(base: Buffer, b: number, next: Buffer, n: number, max: number): number {
  let run = 0
  for (let size = CHUNK; run < max; ) {
    const step = Math.min(size, max - run)
    if (base.compare(next, n - run - step, n - run, b - run - step, b - run) === 0) {
      run += step
      size = Math.min(2 * size, MAX_CHUNK)
    } else if (step > CHUNK) size = CHUNK
    else {
      while (run < max && base[b - 1 - run] === next[n - 1 - run]) run++
      break
    }
  }
  return run
}

interface Budget {
  regions: number
  searched: number
}

/**
 * `next` as pieces against `base`: every byte of `next` is in exactly one literal or one copy, in order. Copies
 * advance through the base (what was moved elsewhere is literal).
 */
export function piecesOf(base: Buffer, next: Buffer): Piece[] {
  const pieces: Piece[] = []
  const budget: Budget = { regions: MAX_REGIONS, searched: SEARCH_FACTOR * next.length }
  let literalFrom = 0
  const copy = (from: number, length: number, at: number): void => {
    if (length === 0) return
    const last = pieces.at(-1)
    // A copy that goes on where the last one ended, with nothing between, extends it.
    if (last !== undefined && literalFrom === at && last.copyFrom + last.copyLength === from) last.copyLength += length
    else pieces.push({ literalFrom, literalTo: at, copyFrom: from, copyLength: length })
    literalFrom = at + length
  }
  region(base, next, { b: 0, bEnd: base.length, n: 0, nEnd: next.length }, budget, copy)
  if (literalFrom < next.length) pieces.push({ literalFrom, literalTo: next.length, copyFrom: 0, copyLength: 0 })
  return pieces
}

interface Region {
  b: number
  bEnd: number
  n: number
  nEnd: number
}

type Copy = (from: number, length: number, at: number) => void

/** Explains next[n, nEnd) by base[b, bEnd): its common ends, then an anchor in what lies between, either side of it. */
function region(base: Buffer, next: Buffer, r: Region, budget: Budget, copy: Copy): void {
  const prefix = forwardRun(base, r.b, next, r.n, Math.min(r.bEnd - r.b, r.nEnd - r.n))
  copy(r.b, prefix, r.n)
  const b = r.b + prefix
  const n = r.n + prefix
  const suffix = backwardRun(base, r.bEnd, next, r.nEnd, Math.min(r.bEnd - b, r.nEnd - n))
  const bEnd = r.bEnd - suffix
  const nEnd = r.nEnd - suffix
  const found = nEnd - n > SMALL_REGION && bEnd - b >= ANCHOR && budget.regions > 0 ? anchored(base, next, { b, bEnd, n, nEnd }, budget) : undefined
  if (found !== undefined) {
    region(base, next, { b, bEnd: found.b, n, nEnd: found.n }, budget, copy)
    copy(found.b, found.length, found.n)
    region(base, next, { b: found.b + found.length, bEnd, n: found.n + found.length, nEnd }, budget, copy)
  }
  // Whatever lies between stays literal: the next copy (or the end) takes it in.
  copy(bEnd, suffix, nEnd)
}

/**
 * A run the base and the new version share inside the region, grown from an anchor taken from the middle of the new
 * bytes (then a quarter and three quarters in) and looked up in the base nearest where it would sit were the region's
 * sizes alike; undefined when none is found within the budget.
 */
function anchored(base: Buffer, next: Buffer, r: Region, budget: Budget): { b: number; n: number; length: number } | undefined {
  budget.regions--
  const area = base.subarray(r.b, r.bEnd)
  for (const share of [0.5, 0.25, 0.75]) {
    if (budget.searched < area.length) return undefined
    budget.searched -= area.length
    const at = r.n + Math.floor((r.nEnd - r.n - ANCHOR) * share)
    const anchor = next.subarray(at, at + ANCHOR)
    const expected = Math.min(at - r.n, area.length - ANCHOR)
    // Near where it would sit first (an edit moves what follows it by its size), then anywhere in the region.
    const near = Math.max(0, expected - NEAR)
    const hit = nearest(area.subarray(near, expected + ANCHOR + NEAR), anchor, expected - near, near) ?? nearest(area, anchor, expected, 0)
    if (hit === undefined) continue
    const b = r.b + hit
    const back = backwardRun(base, b, next, at, Math.min(hit, at - r.n))
    const forward = forwardRun(base, b + ANCHOR, next, at + ANCHOR, Math.min(r.bEnd - b - ANCHOR, r.nEnd - at - ANCHOR))
    return { b: b - back, n: at - back, length: back + ANCHOR + forward }
  }
  return undefined
}

/** The start (plus `offset`) of the occurrence of `anchor` in `area` nearest `expected`; undefined when there is none. */
function nearest(area: Buffer, anchor: Buffer, expected: number, offset: number): number | undefined {
  const after = area.indexOf(anchor, expected)
  const before = area.lastIndexOf(anchor, expected)
  if (after < 0 && before < 0) return undefined
  const hit = after < 0 ? before : before < 0 ? after : after - expected <= expected - before ? after : before
  return hit + offset
}
