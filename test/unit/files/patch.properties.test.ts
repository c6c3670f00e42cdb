// Property tests for forge_patch's promises: an exact replace is reversible byte for byte, a call applies all or
// nothing, and a file keeps its line endings and its final-newline state.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { PatchError, type PatchResult, applyPatches } from "../../../services/files/patch.apply"
import type { Patch } from "../../../services/files/patch.schema"

const RUNS = { numRuns: 200 }

/** Few distinct pieces, so texts repeat themselves (ambiguity) and searches still often occur once. */
const piece = fc.constantFrom<string>("a", "b", "c", "ab", " ", "\t", "\n", "x\n", "é", "😀")
const pieces = (minLength: number, maxLength: number) => fc.array(piece, { minLength, maxLength })
/** With a lone "\r" too, for the line-ending properties: it must never pair up with or split a line break. */
const rawPieces = (minLength: number, maxLength: number) => fc.array(fc.oneof(piece, fc.constant("\r")), { minLength, maxLength })

const crlf = (text: string): string => text.replace(/\n/g, "\r\n")
const eolOf = fc.constantFrom<(text: string) => string>((text) => text, crlf)
/** The file's convention for `text`: a text without line breaks has none, and takes new text as written. */
const conventionOf = (text: string, eol: (text: string) => string) => (text.includes("\n") ? eol : (same: string) => same)

/** Every start of `needle` in `text`, overlapping ones included, as the engine counts. */
function count(text: string, needle: string): number {
  let n = 0
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) n++
  return n
}

const endsWithBreak = (text: string): boolean => text.endsWith("\n")

/** A slice of the pieces, whole pieces only (an emoji is never cut in half): [start, end) in characters. */
function slice(parts: readonly string[], from: number, length: number): { start: number; end: number; text: string } {
  const i = from % parts.length
  const j = Math.min(parts.length, i + 1 + (length % 4))
  const start = parts.slice(0, i).join("").length
  const text = parts.slice(i, j).join("")
  return { start, end: start + text.length, text }
}

/** The outcome of a call: its result, or its PatchError (anything else thrown fails the test). */
function attempt(text: string, patches: readonly Patch[]): PatchResult | PatchError {
  try {
    return applyPatches(text, patches)
  } catch (error) {
    if (error instanceof PatchError) return error
    throw error
  }
}

const patchSpec = fc.record({
  operation: fc.constantFrom("prepend", "append", "replace", "swap"),
  from: fc.nat(),
  length: fc.nat(),
  withFrom: fc.nat(),
  withLength: fc.nat(),
  content: rawPieces(0, 4),
  // Mostly the first match, so patches on a repetitive text often apply; sometimes none named, or past the last.
  occurrence: fc.constantFrom(1, 1, 1, 2, 3, undefined),
})

type PatchSpec = typeof patchSpec extends fc.Arbitrary<infer T> ? T : never

/** A patch built against the (LF) pieces: searches are slices of the text, so many of them occur; some do not. */
function toPatch(parts: readonly string[], spec: PatchSpec): Patch {
  const search = slice(parts, spec.from, spec.length).text
  const occurrence = spec.occurrence === undefined ? {} : { occurrence: spec.occurrence }
  if (spec.operation === "swap") return { operation: "swap", search, with: slice(parts, spec.withFrom, spec.withLength).text, ...occurrence }
  const content = spec.content.join("")
  if (spec.operation === "replace") return { operation: "replace", search, content, ...occurrence }
  return { operation: spec.operation, search, content: content === "" ? "+" : content, ...occurrence }
}

/**
 * Applies the patches as one call, then one call each in sequence (more of them apply that way), and checks every
 * result: the line-ending check, and the final-newline state of the text it started from. A text whose patches
 * removed every line break has no convention left, so the calls stop there.
 */
function keepsLineEndings(text: string, patches: readonly Patch[], check: (result: string) => void): void {
  const calls = [patches, ...patches.map((patch) => [patch])]
  let current = text
  calls.forEach((call, i) => {
    const from = i === 0 ? text : current
    if (!from.includes("\n")) return
    const outcome = attempt(from, call)
    if (outcome instanceof PatchError) return
    check(outcome.text)
    if (outcome.text !== "") expect(endsWithBreak(outcome.text)).toBe(endsWithBreak(from))
    if (i > 0) current = outcome.text
  })
}

describe("patch properties", () => {
  it("replace, then the inverse replace, restores the text byte for byte", () => {
    fc.assert(
      fc.property(pieces(1, 30), fc.nat(), fc.nat(), pieces(1, 4), eolOf, (parts, from, length, replacement, chosen) => {
        const text = parts.join("")
        const eol = conventionOf(text, chosen)
        const needle = slice(parts, from, length)
        const other = replacement.join("")
        const replaced = text.slice(0, needle.start) + other + text.slice(needle.end)
        fc.pre(count(text, needle.text) === 1 && other !== needle.text && count(replaced, other) === 1)
        // Replacing the very end may add or drop the final line break, which the engine then restores on purpose.
        fc.pre(endsWithBreak(text) === endsWithBreak(replaced))
        const file = eol(text)
        // Search and content written with LF, as a model writes them; the file may be CRLF.
        const once = applyPatches(file, [{ operation: "replace", search: needle.text, content: other }])
        expect(once.text).toBe(eol(replaced))
        const back = applyPatches(once.text, [{ operation: "replace", search: other, content: eol(needle.text) }])
        expect(back.text).toBe(file)
      }),
      RUNS,
    )
  })

  it("prepend or append, then replacing the inserted region, restores the text", () => {
    fc.assert(
      fc.property(pieces(1, 30), fc.nat(), fc.nat(), pieces(1, 4), fc.constantFrom("prepend", "append"), eolOf, (parts, from, length, added, op, chosen) => {
        const text = parts.join("")
        const eol = conventionOf(text, chosen)
        const needle = slice(parts, from, length)
        const content = added.join("")
        const at = op === "prepend" ? needle.start : needle.end
        const after = text.slice(0, at) + content + text.slice(at)
        const region = op === "prepend" ? content + needle.text : needle.text + content
        fc.pre(count(text, needle.text) === 1 && count(after, region) === 1 && endsWithBreak(text) === endsWithBreak(after))
        const file = eol(text)
        const once = applyPatches(file, [{ operation: op, search: needle.text, content }])
        expect(once.text).toBe(eol(after))
        expect(applyPatches(once.text, [{ operation: "replace", search: region, content: eol(needle.text) }]).text).toBe(file)
      }),
      RUNS,
    )
  })

  it("a call with a failing patch applies nothing and names it; inputs are never mutated", () => {
    const poison: Patch = { operation: "replace", search: "\u0000not in any text", content: "x" }
    fc.assert(
      fc.property(rawPieces(1, 30), eolOf, fc.array(patchSpec, { maxLength: 5 }), fc.nat(), (parts, eol, specs, where) => {
        const text = eol(parts.join(""))
        const patches = specs.map((spec) => toPatch(parts, spec))
        const at = where % (patches.length + 1)
        patches.splice(at, 0, poison)
        const before = structuredClone(patches)
        const outcome = attempt(text, patches)
        expect(outcome).toBeInstanceOf(PatchError)
        const indexes = (outcome as PatchError).problems.map((p) => p.index)
        expect(indexes).toContain(at + 1)
        expect(indexes).toEqual([...new Set(indexes)].sort((a, b) => a - b))
        expect(indexes.every((i) => i >= 1 && i <= patches.length)).toBe(true)
        expect(patches).toEqual(before)
        // The same call without the poison either applies or refuses, and never throws anything else.
        attempt(text, [...patches.slice(0, at), ...patches.slice(at + 1)])
      }),
      RUNS,
    )
  })

  it("a CRLF file stays CRLF (no lone \\n) and keeps its final-newline state", () => {
    fc.assert(
      fc.property(rawPieces(1, 30), fc.array(patchSpec, { minLength: 1, maxLength: 4 }), (parts, specs) => {
        // A file without any line break has no convention to keep (its new text is taken as written).
        fc.pre(parts.join("").includes("\n"))
        const text = crlf(parts.join(""))
        keepsLineEndings(
          text,
          specs.map((spec) => toPatch(parts, spec)),
          (result) => expect(result).not.toMatch(/(^|[^\r])\n/),
        )
      }),
      RUNS,
    )
  })

  it("an LF file stays LF (no \\r\\n appears) and keeps its final-newline state", () => {
    fc.assert(
      fc.property(pieces(1, 30), fc.array(patchSpec, { minLength: 1, maxLength: 4 }), (parts, specs) => {
        const text = parts.join("")
        fc.pre(text.includes("\n"))
        // Content written with CRLF is converted too; a lone "\r" in content is text, so it is left out here.
        const patches = specs.map((spec) => toPatch(parts, { ...spec, content: spec.content.map((p) => (p === "\r" ? "\r\n" : p)) }))
        keepsLineEndings(text, patches, (result) => expect(result).not.toContain("\r\n"))
      }),
      RUNS,
    )
  })

  it("given an ASCII text's bytes, answers as without them, with the result's UTF-8 bytes while every patch brings ASCII", () => {
    const asciiPiece = fc.constantFrom<string>("a", "b", "ab", " ", "\n", "\r", "x\n")
    fc.assert(
      fc.property(fc.array(asciiPiece, { minLength: 1, maxLength: 30 }), eolOf, fc.array(patchSpec, { minLength: 1, maxLength: 4 }), (parts, eol, specs) => {
        const text = eol(parts.join(""))
        const patches = specs.map((spec) => toPatch(parts, spec))
        const plain = attempt(text, patches)
        let given: PatchResult | PatchError
        try {
          given = applyPatches(text, patches, Buffer.from(text, "latin1"))
        } catch (error) {
          if (!(error instanceof PatchError)) throw error
          given = error
        }
        if (plain instanceof PatchError) {
          expect(given).toBeInstanceOf(PatchError)
          expect((given as PatchError).message).toBe(plain.message)
          return
        }
        const result = given as PatchResult
        expect([result.text, result.changes]).toEqual([plain.text, plain.changes])
        const ascii = !/[\u0080-\uffff]/.test(patches.map((p) => (p.operation === "swap" ? "" : p.content)).join(""))
        if (ascii) expect(result.bytes?.equals(Buffer.from(plain.text))).toBe(true)
        else if (result.bytes !== undefined) expect(result.bytes.equals(Buffer.from(plain.text))).toBe(true)
      }),
      { numRuns: 400 },
    )
  })
})
