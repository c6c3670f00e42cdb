// forge_patch's text search: plain string search only, never a regular expression built from the model's text (a
// 10 MB search made V8 refuse the regex, and a loose regex backtracks). Every search is linear in the text: a search
// that keeps matching itself (long and periodic, "aaaa" in "aaaaaa") goes on with Knuth-Morris-Pratt, where
// indexOf would re-read the search at every match; and matches are counted up to a cap.
import { type LineEndings, detectLineEndings, splitsLineBreak, withLineBreaks } from "./text.eol"

export interface Found {
  starts: number[]
  ends: number[]
  /** More matches than the cap exist; `starts` holds the first `cap`. */
  more: boolean
}

/** A text and the forms of it that searches need, each made once however many patches search it. */
export class SearchText {
  private lineEndings: LineEndings | undefined

  constructor(readonly text: string) {}

  get eol(): LineEndings {
    this.lineEndings ??= detectLineEndings(this.text)
    return this.lineEndings
  }
}

/** Past this length, a search that overlaps its own previous match goes on with KMP instead of indexOf. */
const KMP_FROM = 32
/**
 * Longest needle given to indexOf: V8's Boyer-Moore keeps tables for the last 250 characters of a needle only, and a
 * longer one ("a" x 65,535 + "b" in 10 MB of "a") took 227 ms; KMP takes the same few ms on any input.
 */
const NATIVE_MAX = 250

/**
 * Every place `needle` occurs in the text, overlapping ones included (so "aa" in "aaa" is ambiguous, not a first
 * match), up to `cap`; a line break in the needle matches either kind, and no match splits a CRLF pair or a
 * surrogate pair.
 */
export function findExact(view: SearchText, needle: string, cap: number): Found {
  const found: Found = { starts: [], ends: [], more: false }
  // In well-formed text a low surrogate always follows a high one: such a needle could only match inside a character.
  if (needle === "" || isLowSurrogate(needle.charCodeAt(0)) || isHighSurrogate(needle.charCodeAt(needle.length - 1))) return found
  const text = view.text
  const keep = (start: number, end: number): boolean => {
    if (splitsLineBreak(text, start) || splitsLineBreak(text, end) || splitsPair(text, start) || splitsPair(text, end)) return true
    if (found.starts.length === cap) {
      found.more = true
      return false
    }
    found.starts.push(start)
    found.ends.push(end)
    return true
  }
  const eol = view.eol
  // A needle ending in a lone "\r" would match the "\r" of a CRLF, a match to refuse at every line: in the LF-only
  // form no such match exists.
  if (eol.kind === "mixed" || (eol.kind === "crlf" && needle.endsWith("\r"))) {
    streamMatches(text, needle.replace(/\r\n/g, "\n"), "crlf-as-lf", keep)
    return found
  }
  // One kind of line break (or none): writing the needle's breaks that way makes the match a plain indexOf.
  const exact = withLineBreaks(needle, eol.newline)
  eachMatch(text, exact, (at) => keep(at, at + exact.length))
  return found
}

/**
 * Where `needle` would match if whitespace (line breaks included) were ignored on both sides, up to `cap` places
 * (more: `cap + 1` places are returned). Matches do not overlap.
 */
export function findIgnoringSpace(view: SearchText, needle: string, cap: number): number[] {
  const bare = needle.replace(/\s+/g, "")
  if (bare === "") return []
  const hits: number[] = []
  streamMatches(view.text, bare, "no-space", (start) => {
    hits.push(start)
    return hits.length <= cap
  })
  return hits
}

/**
 * KMP over the text read as a stream: every CRLF read as one "\n" ("crlf-as-lf", overlapping matches), or its
 * whitespace skipped ("no-space", matches that do not overlap). No copy of the text is made; `visit` gets each match's
 * start and end in the text itself, and stops the search by returning false. Linear however the needle repeats.
 */
function streamMatches(text: string, needleText: string, reading: "crlf-as-lf" | "no-space", visit: (start: number, end: number) => boolean): void {
  const needle = codes(needleText)
  const m = needle.length
  const fail = failureTable(needle)
  // Where each of the last m characters of the stream began in the text, so a match's start is known at its end.
  const ring = new Int32Array(m)
  for (let i = 0, j = 0, read = 0; i < text.length; i++) {
    let c = text.charCodeAt(i)
    const begin = i
    if (reading === "no-space") {
      if (isSpace(c)) continue
    } else if (c === 13 && text.charCodeAt(i + 1) === 10) {
      i++
      c = 10
    }
    ring[read++ % m] = begin
    while (j > 0 && c !== needle[j]) j = fail[j - 1] as number
    if (c === needle[j]) j++
    if (j === m) {
      if (!visit(ring[read % m] as number, i + 1)) return
      j = reading === "no-space" ? 0 : (fail[j - 1] as number)
    }
  }
}

/** Calls `visit` at each match of `needle` in `hay`, from the first, until it returns false. */
function eachMatch(hay: string, needle: string, visit: (at: number) => boolean): void {
  if (needle.length > NATIVE_MAX) {
    kmpFrom(hay, needle, 0, visit)
    return
  }
  let previous = -1
  for (let at = hay.indexOf(needle); at !== -1; at = hay.indexOf(needle, at + 1)) {
    if (!visit(at)) return
    if (previous !== -1 && at - previous < needle.length && needle.length > KMP_FROM) {
      kmpFrom(hay, needle, at + 1, visit)
      return
    }
    previous = at
  }
}

/** Knuth-Morris-Pratt from `from`: time linear in the hay's rest, however the needle repeats itself. */
function kmpFrom(hay: string, needleText: string, from: number, visit: (at: number) => boolean): void {
  const needle = codes(needleText)
  const m = needle.length
  const fail = failureTable(needle)
  for (let i = from, j = 0; i < hay.length; i++) {
    const c = hay.charCodeAt(i)
    while (j > 0 && c !== needle[j]) j = fail[j - 1] as number
    if (c === needle[j]) j++
    if (j === m) {
      if (!visit(i - m + 1)) return
      j = fail[j - 1] as number
    }
  }
}

/** KMP's table: for each prefix of the needle, the length of its longest proper border. */
function failureTable(needle: Uint16Array): Int32Array {
  const fail = new Int32Array(needle.length)
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle[i] !== needle[k]) k = fail[k - 1] as number
    if (needle[i] === needle[k]) k++
    fail[i] = k
  }
  return fail
}

/** The needle's UTF-16 code units, read many times over. */
function codes(text: string): Uint16Array {
  const out = new Uint16Array(text.length)
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i)
  return out
}

const SPACE = /\s/

/** What `\s` matches, quickly for ASCII. */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13)
  return SPACE.test(String.fromCharCode(c))
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff

/** Whether `offset` falls inside a surrogate pair (one character such as an emoji): an edit there would mangle it. */
function splitsPair(text: string, offset: number): boolean {
  return isHighSurrogate(text.charCodeAt(offset - 1)) && isLowSurrogate(text.charCodeAt(offset))
}
