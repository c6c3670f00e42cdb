// The whole goal document (`.opencode/goal/<date>-<slug>.md`): frontmatter (status, revision, budgets, counters) and
// a body holding the contract sections and the history sections. Parsing validates both; every writer here changes
// only the bytes it is about (frontmatter keys, the contract sections, or lines added to one history section).

import type { GoalBudgets, GoalContract } from "./goal.contract"
import type { GoalLimits } from "../../machines/goal/goal.gates"
import { newGoalAudit } from "../../machines/goal/goal.audit"
import { auditLine } from "./goal.audit.text"
import { renderContractLines, readChecks, readItems, readObjective } from "./goal.contract.text"
import { type GoalFrontmatter, goalFrontmatterCodec } from "./goal.frontmatter"
import {
  type CheckLogEntry,
  readCheckLog,
  readLedger,
  readRevisions,
  renderCheckLogLine,
  renderLedgerLine,
  renderRevisionLine,
  type TurnLedgerEntry,
} from "./goal.log.text"
import { type GoalLayout, locateSections, NONE_ITEM, requiredSection, SECTION_TITLES, type SectionKey, sectionText } from "./goal.sections"
import { lineStarts } from "../documents/markdown.scan"

// The codec's callers import these from here: the document module is the codec's front door.
export { checkLabel, describeContractChanges } from "./goal.contract.text"
export type { GoalFrontmatter } from "./goal.frontmatter"
export type { CheckLogEntry, TurnLedgerEntry } from "./goal.log.text"

export interface GoalDocument {
  frontmatter: GoalFrontmatter
  /** The contract; its budgets are the frontmatter's max_turns / max_minutes / max_cost / max_tokens. */
  contract: GoalContract
  checkLog: CheckLogEntry[]
  ledger: TurnLedgerEntry[]
  /** The items of ## Revisions (the text after `- `). */
  revisions: string[]
}

/** The budgets a frontmatter sets. */
function budgetsOf(fm: GoalFrontmatter): GoalBudgets {
  const budgets: GoalBudgets = { maxTurns: fm.max_turns, maxMinutes: fm.max_minutes }
  if (fm.max_cost !== undefined) budgets.maxCost = fm.max_cost
  if (fm.max_tokens !== undefined) budgets.maxTokens = fm.max_tokens
  return budgets
}

function readDocument(layout: GoalLayout, path: string): GoalDocument {
  const frontmatter = goalFrontmatterCodec.read(layout.block, path)
  const { fail } = layout
  const section = (key: SectionKey) => sectionText(layout, key)
  const contract: GoalContract = {
    objective: readObjective(requiredSection(layout, "objective"), fail),
    checks: readChecks(requiredSection(layout, "checks"), fail),
    success: readItems(requiredSection(layout, "success"), fail),
    constraints: readItems(section("constraints"), fail),
    nonGoals: readItems(section("nonGoals"), fail),
    budgets: budgetsOf(frontmatter),
  }
  return {
    frontmatter,
    contract,
    checkLog: readCheckLog(section("checkLog"), fail),
    ledger: readLedger(section("ledger"), fail),
    revisions: readRevisions(section("revisions"), fail),
  }
}

/** Parses and validates a whole document. Throws DocumentError(path, message, line) for anything malformed. */
export function parseGoalDocument(text: string, path: string): GoalDocument {
  return readDocument(locateSections(text, path), path)
}

const listOrNone = (lines: string[]): string[] => (lines.length === 0 ? [`- ${NONE_ITEM}`] : lines)

/**
 * The document for `doc`. The frontmatter is the budgets' source: `doc.contract.budgets` is not read. Throws
 * DocumentInputError for what cannot be written (a line break in a one-line item, an invalid frontmatter, …).
 */
export function renderGoalDocument(doc: GoalDocument): string {
  const lines = [
    "---",
    goalFrontmatterCodec.render(doc.frontmatter).replace(/\n$/, ""),
    "---",
    "",
    ...renderContractLines(doc.contract),
    "",
    `## ${SECTION_TITLES.checkLog}`,
    ...listOrNone(doc.checkLog.map(renderCheckLogLine)),
    "",
    `## ${SECTION_TITLES.ledger}`,
    ...listOrNone(doc.ledger.map(renderLedgerLine)),
    "",
    `## ${SECTION_TITLES.revisions}`,
    ...listOrNone(doc.revisions.map(renderRevisionLine)),
  ]
  return `${lines.join("\n")}\n`
}

/** Raw text of the document's line range, by 1-based file lines: its helpers for byte-exact edits. */
function fileText(text: string) {
  const starts = lineStarts(text)
  /** Offset of the start of 1-based file line `line` (the text's length past the end). */
  const at = (line: number): number => starts[line - 1] ?? text.length
  return { at }
}

const PLACEHOLDER = /^[ \t]*[-*+][ \t]+\(none\)[ \t]*$/

/**
 * Adds `lines` to a history section: in place of its `- (none)` placeholder, else after its last non-blank line; a
 * missing section is added at the end of the document. Every other byte stays.
 */
function appendToSection(text: string, path: string, key: SectionKey, lines: string[]): string {
  const layout = locateSections(text, path)
  const eol = layout.block.eol
  const section = layout.sections[key]
  if (!section) {
    const base = text.endsWith("\n") ? text : text + eol
    const gap = /\n[ \t]*\r?\n$/.test(base) ? "" : eol
    return `${base}${gap}## ${SECTION_TITLES[key]}${eol}${lines.join(eol)}${eol}`
  }
  const { at } = fileText(text)
  for (let i = section.from; i < section.to; i++) {
    if (layout.scan.fenced[i] || !PLACEHOLDER.test(layout.lines[i] ?? "")) continue
    const from = at(layout.fileLine(i))
    return text.slice(0, from) + lines.join(eol) + text.slice(from + (layout.lines[i] ?? "").length)
  }
  let last = section.to - 1
  while (last >= section.from && (layout.lines[last] ?? "").trim() === "") last--
  const after = Math.max(last, section.heading.index)
  const insertAt = at(layout.fileLine(after) + 1)
  const terminated = insertAt === text.length ? /\n$/.test(text) : true
  return `${text.slice(0, insertAt)}${terminated ? "" : eol}${lines.join(eol)}${eol}${text.slice(insertAt)}`
}

/** Adds Check Log lines; an entry already there (same run, revision and item) is not added again. */
export function appendCheckLog(text: string, path: string, entries: CheckLogEntry[]): string {
  const doc = parseGoalDocument(text, path)
  const key = (e: CheckLogEntry) => JSON.stringify([e.run, e.revision, e.item])
  const seen = new Set(doc.checkLog.map(key))
  const fresh = entries.filter((entry) => {
    if (seen.has(key(entry))) return false
    seen.add(key(entry))
    return true
  })
  if (fresh.length === 0) return text
  return appendToSection(text, path, "checkLog", fresh.map(renderCheckLogLine))
}

/** Adds one Turn Ledger line. */
export function appendTurnLedger(text: string, path: string, entry: TurnLedgerEntry): string {
  parseGoalDocument(text, path)
  return appendToSection(text, path, "ledger", [renderLedgerLine(entry)])
}

/** Adds `- <line>` to ## Revisions. */
export function appendRevision(text: string, path: string, line: string): string {
  parseGoalDocument(text, path)
  return appendToSection(text, path, "revisions", [renderRevisionLine(line)])
}

/** Sets frontmatter keys in place (a removable key given as undefined is removed); every other byte stays. */
export function withGoalFrontmatter(text: string, path: string, patch: Partial<GoalFrontmatter>): string {
  return goalFrontmatterCodec.patch(text, path, patch)
}

const CONTRACT_KEYS: readonly SectionKey[] = ["objective", "success", "checks", "constraints", "nonGoals"]

/**
 * Rewrites the title and the five contract sections for `contract`; the frontmatter, the history sections and any
 * other section keep their bytes. Budgets are frontmatter: the caller patches them (withGoalFrontmatter).
 */
export function replaceContract(text: string, path: string, contract: GoalContract): string {
  const layout = locateSections(text, path)
  readDocument(layout, path)
  const rendered = renderContractLines(contract)
  const eol = layout.block.eol
  // Dropped: everything before the first known section (the title), and the contract sections.
  const dropped = new Array<boolean>(layout.lines.length).fill(false)
  const firstKnown = Math.min(...Object.values(layout.sections).map((s) => s.heading.index))
  for (let i = 0; i < Math.min(firstKnown, layout.lines.length); i++) dropped[i] = true
  for (const key of CONTRACT_KEYS) {
    const section = layout.sections[key]
    if (section) for (let i = section.heading.index; i < section.to; i++) dropped[i] = true
  }
  const { at } = fileText(text)
  let kept = ""
  for (let i = 0; i < layout.lines.length; i++) {
    if (!dropped[i]) kept += text.slice(at(layout.fileLine(i)), at(layout.fileLine(i) + 1))
  }
  kept = kept.replace(/^(?:[ \t]*\r?\n)+/, "")
  const head = text.slice(0, text.length - layout.block.body.length)
  const result = `${head}${eol}${rendered.join(eol)}${eol}${kept === "" ? "" : eol + kept}`
  parseGoalDocument(result, path)
  return result
}

/** A new goal's document: queued, at revision 1, with its contract and budgets (and its audit, when it has one). */
export function newGoalDocument(contract: GoalContract, limits: GoalLimits, at: string): string {
  return renderGoalDocument({
    frontmatter: {
      status: "queued",
      revision: 1,
      max_turns: limits.maxTurns,
      max_minutes: limits.maxMinutes,
      max_cost: limits.maxCost ?? undefined,
      max_tokens: limits.maxTokens ?? undefined,
      turns_used: 0,
      ...(contract.audit === true ? { audit: auditLine(newGoalAudit()) } : {}),
      created: at,
      updated: at,
    },
    contract,
    checkLog: [],
    ledger: [],
    revisions: [],
  })
}
