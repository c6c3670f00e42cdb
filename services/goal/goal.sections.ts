// Where a goal document's sections sit: the frontmatter block, the body's lines, and each known `## …` section
// (titles compare case-insensitively). A duplicated section or a code fence left open is an error naming its line.

import { DocumentError } from "../documents/document.errors"
import { type FrontmatterBlock, splitFrontmatter } from "../documents/frontmatter.block"
import { type MarkdownScan, normalizeTitle, quoteLine, type Section, scanMarkdown, sectionsTitled, splitLines } from "../documents/markdown.scan"

export type SectionKey = "objective" | "success" | "checks" | "constraints" | "nonGoals" | "checkLog" | "ledger" | "revisions"

/** Each section's title as rendered. */
export const SECTION_TITLES: Readonly<Record<SectionKey, string>> = {
  objective: "Objective",
  success: "Success Criteria",
  checks: "Checks",
  constraints: "Constraints",
  nonGoals: "Non-goals",
  checkLog: "Check Log",
  ledger: "Turn Ledger",
  revisions: "Revisions",
}

/** Normalized titles (see normalizeTitle) and the section each names; a few spellings a hand edit may use. */
const KEYS_BY_TITLE: ReadonlyMap<string, SectionKey> = new Map<string, SectionKey>([
  ...(Object.entries(SECTION_TITLES) as [SectionKey, string][]).map(([key, title]): [string, SectionKey] => [normalizeTitle(title), key]),
  ["non goals", "nonGoals"],
  ["nongoals", "nonGoals"],
])
const KNOWN_TITLES: ReadonlySet<string> = new Set(KEYS_BY_TITLE.keys())

/** One line of a section's content, with its 1-based file line. */
export interface SectionLine {
  text: string
  line: number
  fenced: boolean
}

/** A section's content as its readers see it. */
export interface SectionText {
  title: string
  /** 1-based file line of the heading. */
  headingLine: number
  lines: SectionLine[]
}

/** Throws a DocumentError for the document at hand; `line` is a 1-based file line. */
export type Fail = (detail: string, line?: number) => never

export interface GoalLayout {
  block: FrontmatterBlock
  /** The body's lines, without terminators. */
  lines: string[]
  scan: MarkdownScan
  sections: Partial<Record<SectionKey, Section>>
  /** 1-based file line of a 0-based body line index. */
  fileLine(index: number): number
  /** The last line of the file (where a missing section is reported). */
  lastLine: number
  fail: Fail
}

/** Locates the frontmatter and the known sections (without reading either). */
export function locateSections(text: string, path: string): GoalLayout {
  const block = splitFrontmatter(text, path)
  const lines = splitLines(block.body)
  const scan = scanMarkdown(lines)
  const fileLine = (index: number): number => block.closeLine + index + 1
  const fail: Fail = (detail, line) => {
    throw new DocumentError(path, detail, line)
  }
  if (scan.unclosedFence !== undefined) {
    fail("code fence is never closed (headings after it could not be read)", fileLine(scan.unclosedFence))
  }
  const sections: Partial<Record<SectionKey, Section>> = {}
  const known = (title: string) => KNOWN_TITLES.has(normalizeTitle(title))
  for (const section of sectionsTitled(scan, KNOWN_TITLES, lines.length, (h) => known(h.title))) {
    const key = KEYS_BY_TITLE.get(normalizeTitle(section.heading.title))
    if (key === undefined) continue
    const first = sections[key]
    if (first) {
      fail(`a second "${section.heading.title}" section (the first one is on line ${fileLine(first.heading.index)})`, fileLine(section.heading.index))
    }
    sections[key] = section
  }
  return { block, lines, scan, sections, fileLine, lastLine: Math.max(block.closeLine + lines.length, 1), fail }
}

/** A section's content lines, or undefined when the document has no such section. */
export function sectionText(layout: GoalLayout, key: SectionKey): SectionText | undefined {
  const section = layout.sections[key]
  if (!section) return undefined
  const lines: SectionLine[] = []
  for (let i = section.from; i < section.to; i++) {
    lines.push({ text: layout.lines[i] ?? "", line: layout.fileLine(i), fenced: layout.scan.fenced[i] ?? false })
  }
  return { title: section.heading.title, headingLine: layout.fileLine(section.heading.index), lines }
}

/** A required section's content; a missing one is an error naming it. */
export function requiredSection(layout: GoalLayout, key: SectionKey): SectionText {
  const found = sectionText(layout, key)
  if (found) return found
  const required = [SECTION_TITLES.objective, SECTION_TITLES.success, SECTION_TITLES.checks].join(", ")
  return layout.fail(`missing "## ${SECTION_TITLES[key]}" section (a goal document needs ${required})`, layout.lastLine)
}

/** An empty list renders as this single item, and reads back as no items. */
export const NONE_ITEM = "(none)"

const BULLET = /^[ \t]*(?:[-*+]|\d+[.)])(?:[ \t]+(.*))?$/

/**
 * The bullet items of a section (`- text`, trimmed): blank lines and the `- (none)` placeholder are skipped, and
 * any other line is an error saying what a line of this section reads. `describe` names the expected line.
 */
export function bulletItems(section: SectionText, fail: Fail, describe: string): { text: string; line: number }[] {
  const items: { text: string; line: number }[] = []
  for (const line of section.lines) {
    if (line.text.trim() === "") continue
    const m = line.fenced ? null : BULLET.exec(line.text)
    if (!m) fail(`a line under "${section.title}" reads ${describe}, not ${quoteLine(line.text)}`, line.line)
    const text = (m[1] ?? "").trim()
    if (text !== "" && text !== NONE_ITEM) items.push({ text, line: line.line })
  }
  return items
}
