// The journal's blob encodings: every stored form reads back byte for byte, a version a few edits from its base is a
// small delta wherever the edits are, and content a delta cannot explain is compressed or kept whole.

import { randomBytes } from "node:crypto"
import { deflateRawSync } from "node:zlib"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { BROTLI, DEFLATED, DELTA, MAX_DEPTH, RAW, SPLICE, decodeBlob, encodeBlob } from "../../../adapters/storage/journal.blobs"

const base = (bytes: Uint8Array, depth = 0) => ({ hash: "b".repeat(64), bytes, depth })
const roundTrip = (next: Buffer, from?: Buffer) => {
  const stored = encodeBlob(next, from === undefined ? undefined : base(from))
  expect(decodeBlob(stored.bytes, stored.encoding, from).equals(next)).toBe(true)
  return stored
}

/** Source-like lines, each distinct (a number), long enough that an anchor of the delta finds its place. */
const source = (lines: number): Buffer =>
  Buffer.from(Array.from({ length: lines }, (_, i) => `const value_${i} = compute(${i}, "lorem ipsum dolor sit amet");\n`).join(""))

describe("journal blob encodings", () => {
  it("stores one edit as a prefix, a suffix and the bytes between (DELTA)", () => {
    const from = source(2_000)
    const next = Buffer.from(from.toString().replace("value_1000 ", "value_1000_renamed "))
    const stored = roundTrip(next, from)
    expect(stored.encoding).toBe(DELTA)
    expect(stored.bytes.length).toBeLessThan(64)
    expect([stored.base, stored.depth]).toEqual(["b".repeat(64), 1])
  })

  it("stores edits far apart as pieces of the base (SPLICE), a few bytes each", () => {
    const from = source(20_000)
    const text = from.toString()
    const next = Buffer.from(text.replace("value_2000 ", "value_2000b ").replace("value_10000 ", "").replace("value_19900 ", "value_19900 /* new */ "))
    const stored = roundTrip(next, from)
    expect(stored.encoding).toBe(SPLICE)
    expect(stored.bytes.length).toBeLessThan(100)
    // Edits less than a kilobyte apart are one stretch of literal bytes, and still a delta.
    const close = Buffer.from(`// head\n${text.replace("value_7 ", "value_7b ").replace("value_19900 ", "value_19900 /* new */ ")}`)
    const near = roundTrip(close, from)
    expect(near.encoding).toBe(SPLICE)
    expect(near.bytes.length).toBeLessThan(1_000)
  })

  it("compresses what shares too little with its base: deflate when small, brotli when large", () => {
    const small = source(500)
    expect(roundTrip(small, randomBytes(small.length)).encoding).toBe(DEFLATED)
    const large = source(20_000)
    expect(large.length).toBeGreaterThan(1024 * 1024)
    const stored = roundTrip(large)
    expect([stored.encoding, stored.base, stored.depth]).toEqual([BROTLI, null, 0])
    expect(stored.bytes.length).toBeLessThan(large.length / 4)
  })

  it("keeps random bytes whole, and a delta at the deepest depth whole", () => {
    expect(roundTrip(randomBytes(200_000)).encoding).toBe(RAW)
    const from = source(500)
    const next = Buffer.from(from.toString().replace("value_3 ", "value_three "))
    const stored = encodeBlob(next, base(from, MAX_DEPTH))
    expect([stored.encoding, stored.base, stored.depth]).toEqual([DEFLATED, null, 0])
  })

  it("still reads blobs earlier versions deflated", () => {
    const text = source(300)
    expect(decodeBlob(deflateRawSync(text, { level: 1 }), DEFLATED).equals(text)).toBe(true)
  })

  it("refuses a damaged delta instead of giving back other bytes", () => {
    const from = source(20_000)
    const text = from.toString()
    const next = Buffer.from(`${text.replace("value_5 ", "value_5b ").replace("value_15000 ", "value_15000b ")}`)
    const stored = encodeBlob(next, base(from))
    expect(stored.encoding).toBe(SPLICE)
    expect(() => decodeBlob(stored.bytes.subarray(0, stored.bytes.length - 1), SPLICE, from)).toThrow(/reaches past|no piece names/)
    expect(() => decodeBlob(stored.bytes, SPLICE, from.subarray(0, 1000))).toThrow(/reaches past its bytes or its base/)
    expect(() => decodeBlob(stored.bytes, 9, from)).toThrow(/unknown blob encoding 9/)
  })

  it("reads every version back byte for byte, whatever the edits", () => {
    const chunk = fc.oneof(
      fc.constantFrom("a", "b", "ab\n", "lorem ipsum ", `${"x".repeat(70)}\n`),
      fc.uint8Array({ minLength: 1, maxLength: 16 }).map((bytes) => Buffer.from(bytes).toString("hex")),
    )
    const text = fc.array(chunk, { maxLength: 3_000 }).map((parts) => Buffer.from(parts.join("")))
    const edit = fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), cut: fc.nat(3_000), insert: fc.uint8Array({ maxLength: 2_000 }) })
    fc.assert(
      fc.property(text, fc.array(edit, { maxLength: 6 }), (from, edits) => {
        let next = from
        for (const { at, cut, insert } of edits) {
          const start = Math.floor(at * next.length)
          next = Buffer.concat([next.subarray(0, start), insert, next.subarray(Math.min(next.length, start + cut))])
        }
        roundTrip(next, from)
        roundTrip(next)
      }),
      { numRuns: 300 },
    )
  })
})
