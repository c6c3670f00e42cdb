// The goal contract as document text: the title and the Objective / Success Criteria / Checks / Constraints /
// Non-goals sections, rendered and read back exactly (commands, files and texts sit in code spans that hold any
// backticks), and the changes between two contracts in words a revision line can carry.

import { DocumentInputError } from "../documents/document.errors"
import { quoteLine, scanMarkdown } from "../documents/markdown.scan"
import type { GoalTerms } from "../../machines/goal/goal.gates"
import { CHECK_TIMEOUT_DEFAULT_S, CHECK_TIMEOUT_MAX_S, type GoalCheck, type GoalContract } from "./goal.contract"
import { bulletItems, type Fail, NONE_ITEM, SECTION_TITLES, type SectionText } from "./goal.sections"

const LINE_BREAK = /[\r\n\u2028\u2029]/

/**
 * `text` as an inline code span (CommonMark): a backtick run one longer than the longest run inside, padded with a
 * space on each side when the text starts or ends with a backtick, or starts and ends with a space.
 */
export function codeSpan(text: string): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length))
  const fence = "`".repeat(longest + 1)
  const pad = /^`|`$/.test(text) || (text.startsWith(" ") && text.endsWith(" ") && /[^ ]/.test(text)) ? " " : ""
  return `${fence}${pad}${text}${pad}${fence}`
}

/** Reads the code span opening at `at` (its closing run is the next run of the same length), or undefined. */
export function readCodeSpan(line: string, at: number): { text: string; end: number } | undefined {
  const open = /^`+/.exec(line.slice(at))?.[0]
  if (!open) return undefined
  for (let i = at + open.length; i < line.length; ) {
    const next = line.indexOf("`", i)
    if (next === -1) return undefined
    let end = next
    while (line[end] === "`") end++
    if (end - next === open.length) {
      const raw = line.slice(at + open.length, next)
      const strip = raw.length >= 2 && raw.startsWith(" ") && raw.endsWith(" ") && /[^ ]/.test(raw)
      return { text: strip ? raw.slice(1, -1) : raw, end }
    }
    i = end
  }
  return undefined
}

/** A check in one line for the Check Log: the command, or `file :: text`. */
export function checkLabel(check: GoalCheck): string {
  return check.kind === "command" ? check.command : `${check.file} :: ${check.text}`
}

/** A check as a revision line names it: `` `npm test` `` or `` `src/a.ts` :: `export const A` ``. */
function describeCheck(check: GoalCheck): string {
  return check.kind === "command" ? codeSpan(check.command) : `${codeSpan(check.file)} :: ${codeSpan(check.text)}`
}

/** A one-line value of the contract, or a DocumentInputError naming it. */
function oneLine(what: string, value: string): string {
  if (LINE_BREAK.test(value)) throw new DocumentInputError(`${what} has a line break: ${JSON.stringify(value)}`)
  if (value.trim() === "") throw new DocumentInputError(`${what} is empty`)
  return value
}

function listLines(what: string, items: readonly string[]): string[] {
  if (items.length === 0) return [`- ${NONE_ITEM}`]
  return items.map((item, i) => {
    const text = oneLine(`${what} ${i + 1}`, item).trim()
    if (text === NONE_ITEM) throw new DocumentInputError(`${what} ${i + 1} cannot be ${JSON.stringify(NONE_ITEM)}: that marks an empty list`)
    return `- ${text}`
  })
}

function checkLine(check: GoalCheck, number: number): string {
  const what = `check ${number}'s`
  if (check.kind === "contains") {
    return `${number}. contains ${codeSpan(oneLine(`${what} file`, check.file))} :: ${codeSpan(oneLine(`${what} text`, check.text))}`
  }
  if (!Number.isInteger(check.timeoutS) || check.timeoutS < 1 || check.timeoutS > CHECK_TIMEOUT_MAX_S) {
    throw new DocumentInputError(`${what} timeout ${check.timeoutS} s is outside 1..${CHECK_TIMEOUT_MAX_S}`)
  }
  return `${number}. command ${codeSpan(oneLine(`${what} command`, check.command))} (timeout ${check.timeoutS} s)`
}

/** The objective's lines (trimmed as a whole); a line that would read as a heading or open a fence is refused. */
function objectiveLines(objective: string): string[] {
  const lines = objective.replace(/\r\n?/g, "\n").trim().split("\n")
  if (lines.join("") === "") throw new DocumentInputError("the objective is empty")
  const scan = scanMarkdown(lines)
  const heading = scan.headings[0]
  if (heading) throw new DocumentInputError(`the objective's line ${heading.index + 1} would read as a heading: ${quoteLine(lines[heading.index] ?? "")}`)
  if (scan.unclosedFence !== undefined) throw new DocumentInputError(`the objective's line ${scan.unclosedFence + 1} opens a code fence it never closes`)
  return lines
}

/** The title and the five contract sections, blank lines between them, no trailing blank line. Budgets are not here. */
export function renderContractLines(contract: GoalContract): string[] {
  const objective = objectiveLines(contract.objective)
  return [
    `# Goal: ${objective[0]?.trim()}`,
    "",
    `## ${SECTION_TITLES.objective}`,
    ...objective,
    "",
    `## ${SECTION_TITLES.success}`,
    ...listLines("criterion", contract.success),
    "",
    `## ${SECTION_TITLES.checks}`,
    ...(contract.checks.length === 0 ? [`- ${NONE_ITEM}`] : contract.checks.map((check, i) => checkLine(check, i + 1))),
    "",
    `## ${SECTION_TITLES.constraints}`,
    ...listLines("constraint", contract.constraints),
    "",
    `## ${SECTION_TITLES.nonGoals}`,
    ...listLines("non-goal", contract.nonGoals),
  ]
}

/** The objective: the section's text, trimmed; an empty one is an error on its heading. */
export function readObjective(section: SectionText, fail: Fail): string {
  const objective = section.lines
    .map((l) => l.text)
    .join("\n")
    .trim()
  if (objective === "") fail(`the "${section.title}" section is empty: it holds the goal's objective`, section.headingLine)
  return objective
}

/** A list section's items; an absent (optional) section has none. */
export function readItems(section: SectionText | undefined, fail: Fail): string[] {
  return section ? bulletItems(section, fail, '"- text"').map((item) => item.text) : []
}

const CHECK_FORMAT = "a check reads `1. command `cmd` (timeout N s)` or `2. contains `file` :: `text``"
const CHECK_HEAD = /^[ \t]*(\d+)[.)][ \t]+(command|contains)[ \t]+/
const PLACEHOLDER = /^[ \t]*[-*+][ \t]+\(none\)[ \t]*$/

/** The Checks section: numbered 1, 2, … in order; every non-blank line is a check (or the `- (none)` placeholder). */
export function readChecks(section: SectionText, fail: Fail): GoalCheck[] {
  const checks: GoalCheck[] = []
  for (const { text, line, fenced } of section.lines) {
    if (text.trim() === "" || (!fenced && PLACEHOLDER.test(text))) continue
    const unreadable = (): never => fail(`unreadable check line ${quoteLine(text)}: ${CHECK_FORMAT}`, line)
    const head = fenced ? null : CHECK_HEAD.exec(text)
    if (!head) return unreadable()
    const number = Number(head[1])
    if (number !== checks.length + 1) fail(`check numbered ${head[1]} should be check ${checks.length + 1} (checks are numbered 1, 2, … in order)`, line)
    const first = readCodeSpan(text, head[0].length)
    if (!first) return unreadable()
    const rest = text.slice(first.end)
    const what = `check ${number}'s`
    if (head[2] === "command") {
      const timeout = /^(?:[ \t]+\(timeout[ \t]+(\d+)[ \t]*s\))?[ \t]*$/.exec(rest)
      if (!timeout) return unreadable()
      const timeoutS = timeout[1] === undefined ? CHECK_TIMEOUT_DEFAULT_S : Number(timeout[1])
      if (timeoutS < 1 || timeoutS > CHECK_TIMEOUT_MAX_S) fail(`${what} timeout ${timeout[1]} s is outside 1..${CHECK_TIMEOUT_MAX_S}`, line)
      if (first.text.trim() === "") fail(`${what} command is empty`, line)
      checks.push({ kind: "command", command: first.text, timeoutS })
      continue
    }
    const separator = /^[ \t]+::[ \t]+/.exec(rest)
    const second = separator ? readCodeSpan(rest, separator[0].length) : undefined
    if (!second || rest.slice(second.end).trim() !== "") return unreadable()
    if (first.text.trim() === "") fail(`${what} file is empty`, line)
    if (second.text.trim() === "") fail(`${what} text is empty`, line)
    checks.push({ kind: "contains", file: first.text, text: second.text })
  }
  return checks
}

interface Matching {
  /** [before index, after index] of each item found in both, in after order. */
  pairs: [number, number][]
  removed: number[]
  added: number[]
  reordered: boolean
}

/** Pairs equal keys first come, first served; what is left was removed (before) or added (after). */
function match<T>(before: readonly T[], after: readonly T[], key: (item: T) => string): Matching {
  const used = new Set<number>()
  const pairs: [number, number][] = []
  const added: number[] = []
  after.forEach((item, j) => {
    const k = key(item)
    const i = before.findIndex((other, index) => !used.has(index) && key(other) === k)
    if (i === -1) added.push(j)
    else {
      used.add(i)
      pairs.push([i, j])
    }
  })
  const removed = before.map((_, i) => i).filter((i) => !used.has(i))
  const reordered = pairs.some(([i], n) => n > 0 && i < (pairs[n - 1]?.[0] ?? -1))
  return { pairs, removed, added, reordered }
}

const checkKey = (check: GoalCheck): string => JSON.stringify(check.kind === "command" ? [check.kind, check.command] : [check.kind, check.file, check.text])

function listChanges(noun: string, plural: string, before: readonly string[], after: readonly string[]): string[] {
  const m = match(before, after, (item) => item.trim())
  return [
    ...m.added.map((j) => `added ${noun} "${after[j]?.trim()}"`),
    ...m.removed.map((i) => `removed ${noun} "${before[i]?.trim()}"`),
    ...(m.reordered ? [`${plural} reordered`] : []),
  ]
}

/** What changed between two contracts, one phrase each; empty when they are equal (budgets are not compared). */
export function describeContractChanges(before: GoalTerms, after: GoalTerms): string[] {
  const changes: string[] = []
  if (before.objective.trim() !== after.objective.trim()) changes.push("objective changed")
  const checks = match(before.checks, after.checks, checkKey)
  for (const j of checks.added) changes.push(`added check ${j + 1} ${describeCheck(after.checks[j] as GoalCheck)}`)
  for (const i of checks.removed) changes.push(`removed check ${i + 1} ${describeCheck(before.checks[i] as GoalCheck)}`)
  for (const [i, j] of checks.pairs) {
    const was = before.checks[i]
    const now = after.checks[j]
    if (was?.kind === "command" && now?.kind === "command" && was.timeoutS !== now.timeoutS) {
      changes.push(`check ${j + 1}'s timeout ${was.timeoutS} s → ${now.timeoutS} s`)
    }
  }
  if (checks.reordered) changes.push("checks reordered")
  changes.push(...listChanges("criterion", "success criteria", before.success, after.success))
  changes.push(...listChanges("constraint", "constraints", before.constraints, after.constraints))
  changes.push(...listChanges("non-goal", "non-goals", before.nonGoals, after.nonGoals))
  return changes
}
