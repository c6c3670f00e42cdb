// The text one forge_patch call edits, patch after patch: a string, or, for an ASCII file, its bytes, whose string is
// read (latin1: a plain copy) only when a patch searches it. The last result's string is never made when nothing asks
// for it (the file gets the bytes): joining, or even copying, a 10 MB string costs V8 or malloc fresh pages (~5 ms).
import { linesOf } from "./text.eol"

/** A replaced range of the text before a patch; several of one patch are sorted and do not overlap. */
export interface Edit {
  start: number
  end: number
  insert: string
}

const NOT_ASCII = /[\u0080-\uffff]/

export class Draft {
  private constructor(
    private made: string | undefined,
    /** Its bytes while every character is ASCII (one byte each); undefined once a patch brought any other. */
    readonly bytes: Buffer | undefined,
  ) {}

  /** The call's input; `ascii`: its bytes, when every character of it is ASCII. */
  static of(text: string, ascii: Uint8Array | undefined): Draft {
    return new Draft(text, ascii === undefined ? undefined : Buffer.from(ascii.buffer, ascii.byteOffset, ascii.byteLength))
  }

  get text(): string {
    this.made ??= (this.bytes as Buffer).toString("latin1")
    return this.made
  }

  get length(): number {
    return this.bytes?.length ?? this.text.length
  }

  /** The UTF-16 code unit at `at` (NaN past either end). */
  codeAt(at: number): number {
    return this.bytes === undefined ? this.text.charCodeAt(at) : (this.bytes[at] ?? Number.NaN)
  }

  /** The text with the edits made: as bytes while every insert is ASCII too, else as a string from then on. */
  edited(edits: readonly Edit[]): Draft {
    const bytes = this.bytes
    if (bytes !== undefined && edits.every((edit) => !NOT_ASCII.test(edit.insert))) {
      const parts: Buffer[] = []
      let from = 0
      for (const edit of edits) {
        parts.push(bytes.subarray(from, edit.start), Buffer.from(edit.insert, "latin1"))
        from = edit.end
      }
      parts.push(bytes.subarray(from))
      return new Draft(undefined, Buffer.concat(parts))
    }
    const text = this.text
    let out = ""
    let from = 0
    for (const edit of edits) {
      out += text.slice(from, edit.start) + edit.insert
      from = edit.end
    }
    return new Draft(out + text.slice(from), undefined)
  }

  /** Whether it holds exactly what `other` does. */
  same(other: Draft): boolean {
    if (this.bytes !== undefined && other.bytes !== undefined) return this.bytes.equals(other.bytes)
    return this.text === other.text
  }

  /** 1-based line of the character at each offset (linesOf), counted in the bytes when there are bytes. */
  lines(offsets: readonly number[]): number[] {
    const bytes = this.bytes
    if (bytes === undefined) return linesOf(this.text, offsets)
    const order = offsets.map((offset, i) => ({ offset, i })).sort((a, b) => a.offset - b.offset)
    const lines = new Array<number>(offsets.length)
    let line = 1
    let at = bytes.indexOf(10)
    for (const { offset, i } of order) {
      while (at !== -1 && at < offset) {
        line++
        at = bytes.indexOf(10, at + 1)
      }
      lines[i] = line
    }
    return lines
  }
}
