// Line-level markdown scanning shared by the plan parser, the narrative writer and the structure report.
// Only what the plan format needs: ATX headings, fenced code blocks (so a `# comment` in a shell snippet is not
// a heading), and the two marker comments.

/** Precedes each `## Phase N: Title` heading. */
export const SECTION_MARKER = "<!-- forge-section -->"
/** Everything after the first line holding only this marker is inert to the parser. */
export const NARRATIVE_MARKER = "<!-- forge-narrative -->"

export interface Heading {
  /** 0-based index into the scanned lines. */
  index: number
  level: number
  title: string
}

export interface MarkdownScan {
  headings: Heading[]
  /** Per line: whether it sits inside a fenced code block (fence lines included). */
  fenced: boolean[]
  /** 0-based index of a fence opening that is never closed, if any. */
  unclosedFence?: number
}

/** Lines without their terminators (LF or CRLF); a final terminator does not open an extra empty line. */
export function splitLines(text: string): string[] {
  if (text === "") return []
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line))
}

/** 0-based offset of the start of every line, plus `text.length` as a sentinel, for slicing the raw text. */
export function lineStarts(text: string): number[] {
  const starts = [0]
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1)
  if (starts[starts.length - 1] !== text.length) starts.push(text.length)
  return starts
}

/** 1-based line holding the character at `offset` (an offset at a line's terminator belongs to that line). */
export function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0
  let hi = starts.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if ((starts[mid] ?? 0) <= offset) lo = mid
    else hi = mid - 1
  }
  return lo + 1
}

export function isMarkerLine(line: string, marker: string): boolean {
  return line.trim() === marker
}

/** 0-based index of the narrative marker line, or -1. */
export function findNarrative(lines: readonly string[]): number {
  return lines.findIndex((line) => isMarkerLine(line, NARRATIVE_MARKER))
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/

function parseHeading(line: string): { level: number; title: string } | null {
  const m = HEADING.exec(line)
  if (!m) return null
  const hashes = m[1] ?? ""
  // A closing run of #'s is decoration, not part of the title (CommonMark).
  const title = (m[2] ?? "").replace(/(^|[ \t]+)#+$/, "").trim()
  return { level: hashes.length, title }
}

export function scanMarkdown(lines: readonly string[]): MarkdownScan {
  const headings: Heading[] = []
  const fenced: boolean[] = []
  let fence: { char: string; length: number; index: number } | null = null
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? ""
    if (fence) {
      fenced.push(true)
      const run = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line)?.[1]
      if (run && run[0] === fence.char && run.length >= fence.length) fence = null
      continue
    }
    const open = FENCE_OPEN.exec(line)
    const run = open?.[1]
    // A backtick fence's info string may not contain backticks; otherwise it is inline code.
    if (run && !(run[0] === "`" && (open?.[2] ?? "").includes("`"))) {
      fence = { char: run[0] ?? "`", length: run.length, index }
      fenced.push(true)
      continue
    }
    fenced.push(false)
    const heading = parseHeading(line)
    if (heading) headings.push({ index, ...heading })
  }
  const scan: MarkdownScan = { headings, fenced }
  if (fence) scan.unclosedFence = fence.index
  return scan
}

/** Heading titles compare case-insensitively, ignoring a trailing colon and repeated spaces. */
export function normalizeTitle(title: string): string {
  return title.replace(/:\s*$/, "").replace(/\s+/g, " ").trim().toLowerCase()
}

/** Quotes a line for an error message, shortened so one message stays one readable line. */
export function quoteLine(line: string, max = 80): string {
  const trimmed = line.trim()
  return JSON.stringify(trimmed.length > max ? `${trimmed.slice(0, max - 1)}…` : trimmed)
}
