// How the journal's blobs are stored: a small edit of a large file as a delta against the version before it (its
// common prefix and suffix kept by reference, the bytes between stored), any other content deflated when that saves
// space, else as it is. Deltas chain to a bounded depth, so a read applies at most MAX_DEPTH of them; every read gives
// the content back byte for byte.
import { deflateRawSync, inflateRawSync } from "node:zlib"

export const RAW = 0
export const DEFLATED = 1
export const DELTA = 2

/** Deltas a read may have to apply: past it, a version is stored whole again. */
export const MAX_DEPTH = 16
/** A delta is kept only when the bytes it shares with its base are at least this share of the content. */
const DELTA_SHARE = 0.5
/** Deflate is kept only when it saves at least a tenth; smaller contents are stored as they are. */
const DEFLATE_MIN_BYTES = 256
const DEFLATE_GAIN = 0.9
/** Bytes compared at a time while finding the common prefix and suffix. */
const CHUNK = 4096
const HEADER = 8

export interface StoredBlob {
  bytes: Buffer
  encoding: number
  base: string | null
  depth: number
}

/** A blob the new one may be a delta against: its hash, its content and its depth. */
export interface DeltaBase {
  hash: string
  bytes: Uint8Array
  depth: number
}

const bufferOf = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))

/** The content as it is to be stored: a delta against `base` when that is small, else deflated or whole. */
export function encodeBlob(content: Uint8Array, base?: DeltaBase): StoredBlob {
  const bytes = bufferOf(content)
  if (base !== undefined && base.depth < MAX_DEPTH) {
    const delta = deltaOf(bufferOf(base.bytes), bytes)
    if (delta !== undefined) return { bytes: delta, encoding: DELTA, base: base.hash, depth: base.depth + 1 }
  }
  if (bytes.length >= DEFLATE_MIN_BYTES) {
    const deflated = deflateRawSync(bytes, { level: 1 })
    if (deflated.length <= bytes.length * DEFLATE_GAIN) return { bytes: deflated, encoding: DEFLATED, base: null, depth: 0 }
  }
  return { bytes: Buffer.from(bytes), encoding: RAW, base: null, depth: 0 }
}

/** The content back from what was stored; `base` is the content of the blob a delta names. */
export function decodeBlob(stored: Uint8Array, encoding: number, base?: Uint8Array): Buffer {
  const bytes = bufferOf(stored)
  if (encoding === RAW) return Buffer.from(bytes)
  if (encoding === DEFLATED) return inflateRawSync(bytes)
  if (encoding !== DELTA) throw new Error(`unknown blob encoding ${encoding}`)
  if (base === undefined) throw new Error("a delta blob read without its base")
  const from = bufferOf(base)
  const prefix = bytes.readUInt32LE(0)
  const suffix = bytes.readUInt32LE(4)
  if (prefix + suffix > from.length) throw new Error(`a delta blob asks for ${prefix + suffix} bytes of a base of ${from.length}`)
  return Buffer.concat([from.subarray(0, prefix), bytes.subarray(HEADER), from.subarray(from.length - suffix)])
}

/** `next` as [prefix length][suffix length][the bytes between] against `base`; undefined when it shares too little. */
function deltaOf(base: Buffer, next: Buffer): Buffer | undefined {
  const max = Math.min(base.length, next.length)
  let prefix = 0
  while (prefix < max) {
    const end = Math.min(prefix + CHUNK, max)
    if (base.compare(next, prefix, end, prefix, end) === 0) {
      prefix = end
      continue
    }
    while (prefix < end && base[prefix] === next[prefix]) prefix++
    break
  }
  let suffix = 0
  const room = max - prefix
  while (suffix < room) {
    const step = Math.min(CHUNK, room - suffix)
    const b = base.length - suffix
    const n = next.length - suffix
    if (base.compare(next, n - step, n, b - step, b) === 0) {
      suffix += step
      continue
    }
    while (suffix < room && base[base.length - 1 - suffix] === next[next.length - 1 - suffix]) suffix++
    break
  }
  if (prefix + suffix < next.length * DELTA_SHARE || prefix + suffix <= HEADER) return undefined
  const delta = Buffer.allocUnsafe(HEADER + next.length - prefix - suffix)
  delta.writeUInt32LE(prefix, 0)
  delta.writeUInt32LE(suffix, 4)
  next.copy(delta, HEADER, prefix, next.length - suffix)
  return delta
}
