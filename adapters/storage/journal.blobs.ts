// How the journal's blobs are stored: a version of a file as a delta against the version before it when they share
// most of their bytes (journal.delta.ts), any other content compressed when that saves space, else as it is. Deltas
// chain to a bounded depth, so a read applies at most MAX_DEPTH of them; every read gives the content back byte for
// byte.
import { promisify } from "node:util"
import { brotliCompress, brotliCompressSync, brotliDecompressSync, constants, deflateRawSync, inflateRawSync } from "node:zlib"
import { type Piece, backwardRun, forwardRun, piecesOf } from "./journal.delta"

export const RAW = 0
/** Deflate level 1: contents under BROTLI_FROM bytes. */
export const DEFLATED = 1
/** [prefix length][suffix length][the bytes between]: one edit. Read by every version since deltas came. */
export const DELTA = 2
/** Brotli quality 0: larger contents, which it compresses as well as deflate in half the time (10 MB of source: 25 ms). */
export const BROTLI = 3
/** [pieces][per piece: literal length, copy start, copy length][the literals]: several edits apart. */
export const SPLICE = 4

/** Whether a blob so encoded is read through its base. */
export const readsThroughBase = (encoding: number): boolean => encoding === DELTA || encoding === SPLICE

/** Deltas a read may have to apply: past it, a version is stored whole again. */
export const MAX_DEPTH = 16
/** A delta is kept only when the bytes it shares with its base are at least this share of the content. */
const DELTA_SHARE = 0.5
/** Compression is kept only when it saves at least a tenth; smaller contents are stored as they are. */
const COMPRESS_MIN_BYTES = 256
const COMPRESS_GAIN = 0.9
/** Below it deflate, which packs smaller texts tighter (and every earlier version reads it). */
const BROTLI_FROM = 1024 * 1024
const QUALITY_0 = { params: { [constants.BROTLI_PARAM_QUALITY]: 0 } }
/** Output taken back per trip to the event loop: zlib's default 16 KiB cost as much event-loop time as compressing. */
const ASIDE = { ...QUALITY_0, chunkSize: 1024 * 1024 }
/** Past this many bytes between a common prefix and suffix, the delta looks for shared runs inside them. */
const ONE_EDIT_BYTES = 1024
const HEADER = 8
const PIECE = 12

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

/** The content as it is to be stored: a delta against `base` when that is small, else compressed or whole. */
export function encodeBlob(content: Uint8Array, base?: DeltaBase): StoredBlob {
  const bytes = bufferOf(content)
  return deltaAgainst(bytes, base) ?? whole(bytes, bytes.length >= BROTLI_FROM ? brotliCompressSync(bytes, QUALITY_0) : undefined)
}

const brotliAside = promisify(brotliCompress)

/** encodeBlob, a large content compressed in the thread pool: the event loop, and a write under way, go on meanwhile. */
export async function encodeBlobSoon(content: Uint8Array, base?: DeltaBase): Promise<StoredBlob> {
  const bytes = bufferOf(content)
  return deltaAgainst(bytes, base) ?? whole(bytes, bytes.length >= BROTLI_FROM ? await brotliAside(bytes, ASIDE) : undefined)
}

function deltaAgainst(bytes: Buffer, base: DeltaBase | undefined): StoredBlob | undefined {
  if (base === undefined || base.depth >= MAX_DEPTH) return undefined
  const delta = deltaOf(bufferOf(base.bytes), bytes)
  return delta === undefined ? undefined : { ...delta, base: base.hash, depth: base.depth + 1 }
}

/**
 * Stored whole: compressed (`brotli`, done by the caller for a large content; deflate below BROTLI_FROM) when that
 * saves a tenth, else raw. Brotli gives up on random bytes fast (4 MB: 2 ms; deflate: 85).
 */
function whole(bytes: Buffer, brotli: Buffer | undefined): StoredBlob {
  const stored = (encoded: Buffer, encoding: number): StoredBlob => ({ bytes: encoded, encoding, base: null, depth: 0 })
  if (bytes.length < COMPRESS_MIN_BYTES) return stored(Buffer.from(bytes), RAW)
  const packed = brotli ?? deflateRawSync(bytes, { level: 1 })
  if (packed.length <= bytes.length * COMPRESS_GAIN) return stored(packed, brotli === undefined ? DEFLATED : BROTLI)
  return stored(Buffer.from(bytes), RAW)
}

/** The content back from what was stored; `base` is the content of the blob a delta names. */
export function decodeBlob(stored: Uint8Array, encoding: number, base?: Uint8Array): Buffer {
  const bytes = bufferOf(stored)
  if (encoding === RAW) return Buffer.from(bytes)
  if (encoding === BROTLI) return brotliDecompressSync(bytes)
  if (encoding === DEFLATED) return inflateRawSync(bytes)
  if (encoding !== DELTA && encoding !== SPLICE) throw new Error(`unknown blob encoding ${encoding}`)
  if (base === undefined) throw new Error("a delta blob read without its base")
  return encoding === DELTA ? fromEnds(bytes, bufferOf(base)) : fromPieces(bytes, bufferOf(base))
}

/**
 * `next` against `base`: one edit (a common prefix and suffix) as DELTA, several as SPLICE when that is smaller;
 * undefined when they share too little.
 */
function deltaOf(base: Buffer, next: Buffer): { bytes: Buffer; encoding: number } | undefined {
  const enough = (shared: number): boolean => shared >= next.length * DELTA_SHARE && shared > HEADER
  const prefix = forwardRun(base, 0, next, 0, Math.min(base.length, next.length))
  const suffix = backwardRun(base, base.length, next, next.length, Math.min(base.length, next.length) - prefix)
  const between = next.length - prefix - suffix
  if (between > ONE_EDIT_BYTES) {
    const pieces = piecesOf(base, next)
    const literal = pieces.reduce((sum, piece) => sum + piece.literalTo - piece.literalFrom, 0)
    if (PIECE * pieces.length + literal < between && enough(next.length - literal)) return { bytes: spliceBytes(pieces, next, literal), encoding: SPLICE }
  }
  if (!enough(prefix + suffix)) return undefined
  const delta = Buffer.allocUnsafe(HEADER + between)
  delta.writeUInt32LE(prefix, 0)
  delta.writeUInt32LE(suffix, 4)
  next.copy(delta, HEADER, prefix, next.length - suffix)
  return { bytes: delta, encoding: DELTA }
}

function spliceBytes(pieces: readonly Piece[], next: Buffer, literal: number): Buffer {
  const out = Buffer.allocUnsafe(4 + PIECE * pieces.length + literal)
  out.writeUInt32LE(pieces.length, 0)
  let at = 4 + PIECE * pieces.length
  for (const [i, piece] of pieces.entries()) {
    const row = 4 + PIECE * i
    out.writeUInt32LE(piece.literalTo - piece.literalFrom, row)
    out.writeUInt32LE(piece.copyFrom, row + 4)
    out.writeUInt32LE(piece.copyLength, row + 8)
    at += next.copy(out, at, piece.literalFrom, piece.literalTo)
  }
  return out
}

function fromEnds(bytes: Buffer, from: Buffer): Buffer {
  const prefix = bytes.readUInt32LE(0)
  const suffix = bytes.readUInt32LE(4)
  if (prefix + suffix > from.length) throw new Error(`a delta blob asks for ${prefix + suffix} bytes of a base of ${from.length}`)
  return Buffer.concat([from.subarray(0, prefix), bytes.subarray(HEADER), from.subarray(from.length - suffix)])
}

function fromPieces(bytes: Buffer, from: Buffer): Buffer {
  const count = bytes.readUInt32LE(0)
  let literalAt = 4 + PIECE * count
  if (literalAt > bytes.length) throw new Error(`a delta blob names ${count} pieces in ${bytes.length} bytes`)
  const parts: Buffer[] = []
  for (let i = 0; i < count; i++) {
    const row = 4 + PIECE * i
    const literal = bytes.readUInt32LE(row)
    const copyFrom = bytes.readUInt32LE(row + 4)
    const copyLength = bytes.readUInt32LE(row + 8)
    if (literalAt + literal > bytes.length || copyFrom + copyLength > from.length)
      throw new Error(`a delta blob's piece ${i} reaches past its bytes or its base`)
    parts.push(bytes.subarray(literalAt, literalAt + literal), from.subarray(copyFrom, copyFrom + copyLength))
    literalAt += literal
  }
  if (literalAt !== bytes.length) throw new Error(`a delta blob holds ${bytes.length - literalAt} bytes no piece names`)
  return Buffer.concat(parts)
}
