// Line-level markdown scanning for every document kind: lines and offsets, ATX headings, fenced code blocks (so a
// `# comment` in a shell snippet is not a heading), sections under a heading, list and checklist items.

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

/** The lines under one heading. */
export interface Section {
  heading: Heading
  /** 0-based index of the first line after the heading. */
  from: number
  /** 0-based exclusive end: the next heading that ends the section, or the end of the scanned lines. */
  to: number
}

/** A top-level list item; `checked` is present when the item opens with a `[ ]` / `[x]` box (then not in `text`). */
export interface ListItem {
  text: string
  checked?: boolean
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

/** Whether a line holds only `marker` (an HTML comment such as `<!-- forge-section -->`), spaces aside. */
export function isMarkerLine(line: string, marker: string): boolean {
  return line.trim() === marker
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

/**
 * The sections whose heading title is one of `titles` (normalized, see normalizeTitle), in order. Each ends at the
 * next heading of the same or a higher level, at the next heading `endsAt` accepts (a deeper heading that must not
 * be swallowed), or after the last of `lineCount` lines.
 */
export function sectionsTitled(
  scan: MarkdownScan,
  titles: ReadonlySet<string>,
  lineCount: number,
  endsAt: (heading: Heading) => boolean = () => false,
): Section[] {
  return scan.headings
    .filter((h) => titles.has(normalizeTitle(h.title)))
    .map((heading) => {
      const next = scan.headings.find((h) => h.index > heading.index && (h.level <= heading.level || endsAt(h)))
      return { heading, from: heading.index + 1, to: next ? next.index : lineCount }
    })
}

/** A top-level list item: `- x`, `* x`, `+ x`, `1. x`, `1) x` (no indentation; indented lines are free prose). */
const LIST_ITEM = /^(?:[-*+]|\d+[.)])(?:[ \t]+(.*))?$/
const CHECKBOX = /^\[([ xX])\][ \t]+/

/** The item a line opens, or undefined when the line is no top-level list item. */
export function parseListItem(line: string): ListItem | undefined {
  const m = LIST_ITEM.exec(line)
  if (!m) return undefined
  const rest = m[1] ?? ""
  const box = CHECKBOX.exec(rest)
  return box ? { text: rest.slice(box[0].length), checked: box[1] !== " " } : { text: rest }
}

/** Quotes a line for an error message, shortened so one message stays one readable line. */
export function quoteLine(line: string, max = 80): string {
  const trimmed = line.trim()
  return JSON.stringify(trimmed.length > max ? `${trimmed.slice(0, max - 1)}…` : trimmed)
}
