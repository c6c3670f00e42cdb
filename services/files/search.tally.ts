// What a search found, kept within its bounds as it runs: the lines to show, and counts of everything else.
import type { ScannedFile, SearchSkipReason } from "./search.ports"
import { cutIndex } from "./text.cut"

export interface SearchBounds {
  /** Matching lines shown in all; the rest are counted in the closing note. */
  maxMatches: number
  /** Characters shown of one line; a longer line is cut to a window around its first match. */
  maxLineChars: number
}

export const SEARCH_BOUNDS: SearchBounds = { maxMatches: 200, maxLineChars: 300 }

export interface ShownLine {
  /** 1-based. */
  number: number
  text: string
}

export interface FileMatches {
  path: string
  lines: ShownLine[]
}

export interface SkippedEntry {
  path: string
  bytes?: number
}

export class SearchTally {
  readonly shownFiles: FileMatches[] = []
  matches = 0
  files = 0
  hiddenMatches = 0
  hiddenFiles = 0
  searched = 0
  readonly skipped: Record<SearchSkipReason, SkippedEntry[]> = { binary: [], "too-large": [], unreadable: [] }

  constructor(readonly bounds: SearchBounds) {}

  get shown(): number {
    return this.matches - this.hiddenMatches
  }

  skip(reason: SearchSkipReason, entry: SkippedEntry): void {
    this.skipped[reason].push(entry)
  }

  /** Counts one file's matching lines and keeps those within the bound to show (the file's `shown`, in order). */
  add(file: ScannedFile): void {
    let shownHere: FileMatches | undefined
    let hiddenHere = false
    for (let i = 0; i < file.matches; i++) {
      this.matches++
      const hit = file.shown[i]
      if (this.shown > this.bounds.maxMatches || hit === undefined) {
        this.hiddenMatches++
        hiddenHere = true
        continue
      }
      if (!shownHere) {
        shownHere = { path: file.path, lines: [] }
        this.shownFiles.push(shownHere)
      }
      shownHere.lines.push({ number: hit.line + 1, text: hit.text })
    }
    if (shownHere || hiddenHere) this.files++
    if (hiddenHere) this.hiddenFiles++
  }
}

/**
 * The line, or a window of `max` characters of it around the match at `at` (minified code has matches at column
 * 50,000), marked with "…".
 */
export function lineWindow(line: string, at: number, max: number): string {
  if (line.length <= max) return line
  // A third of the window before the match: enough to see what it belongs to.
  const start = cutIndex(line, Math.min(Math.max(0, at - Math.floor(max / 3)), line.length - max))
  const end = cutIndex(line, start + max)
  return `${start > 0 ? "…" : ""}${line.slice(start, end)}${end < line.length ? "…" : ""}`
}

/** A file's lines as the search tests them: CRLF and LF both end a line, and a final line end opens no empty line. */
export function searchLines(text: string): string[] {
  const lines = text.split("\n")
  if (lines.at(-1) === "") lines.pop()
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line))
}
