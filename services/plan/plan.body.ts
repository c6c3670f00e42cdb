// The plan body parser: tasks, acceptance criteria, phases and the outline, read from the text before the
// narrative marker. Hard errors are reserved for text a later tick or close would misread; everything a draft
// may still be missing is a warning.

import { isMarkerLine, normalizeTitle, parseListItem, quoteLine, scanMarkdown, type Section, sectionsTitled, splitLines } from "../documents/markdown.scan"
import { startsWithFrontmatter } from "../documents/frontmatter.block"
import { PlanDocumentError, PlanInputError } from "./plan.errors"
import { findNarrative, NARRATIVE_MARKER, SECTION_MARKER } from "./plan.markdown"
import type { PlanBody, PlanCriterion, PlanDocument, PlanPhase, PlanTask } from "./plan.types"

const TASK_TITLES: ReadonlySet<string> = new Set(["tasks", "task list"])
const CRITERIA_TITLES: ReadonlySet<string> = new Set(["acceptance criteria"])

/** Whether a heading title names the Tasks section (`Tasks` or `Task List`, any case). */
export const isTasksTitle = (title: string): boolean => TASK_TITLES.has(normalizeTitle(title))
/** Whether a heading title names the Acceptance Criteria section. */
export const isCriteriaTitle = (title: string): boolean => CRITERIA_TITLES.has(normalizeTitle(title))

/** A well-formed task line; group 1 is the box, 2 the number, 3 the rest. */
export const TASK_LINE = /^[-*+][ \t]+\[([ xX])\][ \t]+(\d+)\.(?:[ \t]+(.*))?$/
/** The tick stamp `tickTask` appends to a task line. */
export const TICK_STAMP = /[ \t]*<!--[ \t]*ticked:[ \t]*(.*?)[ \t]*-->[ \t]*$/
/** A `Phase N: Title` heading; group 1 is N, 2 the title. */
export const PHASE_TITLE = /^phase[ \t]+(\d+)(?:[ \t]*[:.\-–—][ \t]*|[ \t]+)?(.*)$/i

/** What keeps a body from approval, as data: empty when it has at least one task and one criterion. */
export function approvalProblems(body: Pick<PlanBody, "tasks" | "criteria">): string[] {
  const problems: string[] = []
  if (body.tasks.length === 0) problems.push('the plan has no tasks (add at least one "- [ ] 1. …" line under ## Tasks)')
  if (body.criteria.length === 0) {
    problems.push('the plan has no acceptance criteria (add at least one "- …" bullet under ## Acceptance Criteria)')
  }
  return problems
}

/**
 * Parses a plan body. `lineOffset` is the number of lines before the body in its file, so lines in results and
 * errors are file lines. Throws PlanDocumentError on a structural error.
 */
export function parsePlanBody(body: string, source: string, lineOffset = 0): PlanBody {
  const all = splitLines(body)
  const narrative = findNarrative(all)
  const lines = narrative === -1 ? all : all.slice(0, narrative)
  const fileLine = (index: number): number => index + 1 + lineOffset
  function fail(detail: string, index?: number): never {
    throw new PlanDocumentError(source, detail, index === undefined ? undefined : fileLine(index))
  }
  const scan = scanMarkdown(lines)
  const warnings: string[] = []

  // A deeper Tasks or Acceptance Criteria heading still ends the section: `# Tasks` must not swallow it.
  const planSections = (titles: ReadonlySet<string>): Section[] =>
    sectionsTitled(scan, titles, lines.length, (h) => isTasksTitle(h.title) || isCriteriaTitle(h.title))
  // A missing section is reported where the parser stopped looking: the narrative marker or the last line.
  const stop = narrative === -1 ? Math.max(lines.length - 1, 0) : narrative
  const notFound = narrative === -1 ? "none before the end of the plan" : `none before the ${NARRATIVE_MARKER} line; text after it is not parsed`
  const [tasksSection, ...extraTasks] = planSections(TASK_TITLES)
  if (!tasksSection) fail(`missing "## Tasks" section (${notFound})`, stop)
  const [criteriaSection, ...extraCriteria] = planSections(CRITERIA_TITLES)
  if (!criteriaSection) fail(`missing "## Acceptance Criteria" section (${notFound})`, stop)
  for (const extra of [...extraTasks, ...extraCriteria]) {
    warnings.push(`line ${fileLine(extra.heading.index)}: a second "${extra.heading.title}" section is ignored; only the first one counts`)
  }

  const tasks: PlanTask[] = []
  for (let i = tasksSection.from; i < tasksSection.to; i++) {
    const line = lines[i] ?? ""
    if (scan.fenced[i] || parseListItem(line) === undefined) continue
    const m = TASK_LINE.exec(line)
    if (!m) fail(`malformed task line ${quoteLine(line)} (expected "- [ ] N. text", N being the task number)`, i)
    const number = Number(m[2])
    if (number < 1) fail(`task number ${m[2]} is invalid: tasks are numbered from 1`, i)
    const rest = m[3] ?? ""
    const stamp = TICK_STAMP.exec(rest)
    const text = rest.replace(TICK_STAMP, "").trim()
    if (text === "") fail(`task ${number} has no text`, i)
    const task: PlanTask = { number, text, ticked: m[1] !== " ", line: fileLine(i) }
    if (stamp?.[1]) task.tickedAt = stamp[1]
    tasks.push(task)
  }
  checkNumbering(tasks, (detail, line) => {
    throw new PlanDocumentError(source, detail, line)
  })

  const criteria: PlanCriterion[] = []
  for (let i = criteriaSection.from; i < criteriaSection.to; i++) {
    const line = lines[i] ?? ""
    if (scan.fenced[i]) continue
    const item = parseListItem(line)
    if (!item) continue
    const text = item.text.trim()
    if (text !== "") criteria.push({ index: criteria.length + 1, text, line: fileLine(i) })
  }

  const phases: PlanPhase[] = []
  for (const heading of scan.headings) {
    const m = PHASE_TITLE.exec(heading.title)
    if (!m) continue
    const index = phases.length + 1
    const title = (m[2] ?? "").trim() || heading.title
    let prev = heading.index - 1
    while (prev >= 0 && (lines[prev] ?? "").trim() === "") prev--
    const marked = prev >= 0 && !scan.fenced[prev] && isMarkerLine(lines[prev] ?? "", SECTION_MARKER)
    phases.push({ index, title, line: fileLine(heading.index), marked })
    const where = `line ${fileLine(heading.index)}: phase "${heading.title}"`
    if (!marked) warnings.push(`${where} has no ${SECTION_MARKER} marker line before it`)
    if (Number(m[1]) !== index) warnings.push(`${where} is numbered ${m[1]} but is phase ${index} in order`)
  }
  lines.forEach((line, i) => {
    if (scan.fenced[i] || !isMarkerLine(line, SECTION_MARKER)) return
    let next = i + 1
    while (next < lines.length && (lines[next] ?? "").trim() === "") next++
    const heading = scan.headings.find((h) => h.index === next)
    if (!heading || !PHASE_TITLE.test(heading.title)) {
      warnings.push(`line ${fileLine(i)}: ${SECTION_MARKER} is not followed by a "## Phase N: Title" heading`)
    }
  })
  if (scan.unclosedFence !== undefined) {
    warnings.push(`line ${fileLine(scan.unclosedFence)}: code fence is never closed; headings after it are not read`)
  }
  for (const problem of approvalProblems({ tasks, criteria })) warnings.push(`not approvable yet: ${problem}`)

  const outline = scan.headings.map((h) => ({ level: h.level, title: h.title, line: fileLine(h.index) }))
  return { tasks, criteria, phases, outline, warnings }
}

/** Task numbers must run 1..n in order: duplicates first, then order, then gaps, so each message names one cause. */
function checkNumbering(tasks: readonly PlanTask[], fail: (detail: string, line: number) => never): void {
  const firstLine = new Map<number, number>()
  for (const task of tasks) {
    const earlier = firstLine.get(task.number)
    if (earlier !== undefined) fail(`duplicate task number ${task.number} (already used on line ${earlier})`, task.line)
    firstLine.set(task.number, task.line)
  }
  tasks.forEach((task, i) => {
    const prev = tasks[i - 1]
    if (prev && task.number < prev.number) {
      fail(`task numbers out of order: task ${task.number} comes after task ${prev.number} (line ${prev.line})`, task.line)
    }
  })
  tasks.forEach((task, i) => {
    if (task.number !== i + 1) {
      fail(`missing task number ${i + 1}: task ${task.number} follows ${i === 0 ? "the heading" : `task ${i}`}`, task.line)
    }
  })
}

export function toTaskStates(tasks: PlanDocument["tasks"]): { number: number; ticked: boolean }[] {
  return tasks.map((t) => ({ number: t.number, ticked: t.ticked }))
}

/**
 * Bodies always end with exactly one newline, so round-trips and appends stay byte-stable. A body that opens with
 * its own frontmatter block is refused, not merged: the frontmatter (status above all) is Forge's to write, and a
 * second block would be stored as body text.
 */
export function normalizeBody(content: string): string {
  if (startsWithFrontmatter(content)) {
    throw new PlanInputError(
      `the plan content starts with its own frontmatter block ("---" … "---"): send the body only, starting with the "# Title" line. ` +
        `Forge writes the frontmatter (status, title, created, updated, session) itself; pass a title with plan_write's title argument.`,
    )
  }
  return `${content.replace(/\r\n/g, "\n").replace(/\s+$/, "")}\n`
}
