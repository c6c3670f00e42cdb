// The whole plan document: frontmatter plus body. Parsing validates both; every writer here changes only the bytes
// it is about (a key's lines, one task line, or bytes appended at the end).

import * as z from "zod"
import { splitFrontmatter } from "../documents/frontmatter.block"
import { lineStarts } from "../documents/markdown.scan"
import { parsePlanBody, TASK_LINE, TICK_STAMP } from "./plan.body"
import { PlanDocumentError, PlanInputError } from "./plan.errors"
import { patchFrontmatter, readFrontmatter, renderFrontmatter } from "./plan.frontmatter"
import type { PlanDocument, PlanFrontmatter } from "./plan.types"

// The codec's callers import these two from here: the document module is the codec's front door.
export { parsePlanBody } from "./plan.body"
export { appendNarrative } from "./plan.narrative"

const tickTime = z.iso.datetime({ offset: true })

/** Parses and validates a whole document. Lines in the result and in errors are lines of `text`. */
export function parsePlanDocument(text: string, source: string): PlanDocument {
  const block = splitFrontmatter(text, source)
  const frontmatter = readFrontmatter(block, source)
  const body = parsePlanBody(block.body, source, block.closeLine)
  return { frontmatter, body: block.body, text, ...body }
}

/** The document for a frontmatter and a body; the body is kept byte for byte. */
export function renderPlanDocument(frontmatter: PlanFrontmatter, body: string): string {
  return `---\n${renderFrontmatter(frontmatter)}---\n${body}`
}

/**
 * Sets frontmatter keys in place (`session` / `successor` given as undefined are removed). The body and every
 * untouched frontmatter line stay byte-identical. Throws PlanDocumentError when the result would be invalid.
 */
export function withFrontmatter(text: string, source: string, patch: Partial<PlanFrontmatter>): string {
  return patchFrontmatter(text, source, patch)
}

/**
 * Ticks task `task`: `- [ ] N. text` becomes `- [x] N. text <!-- ticked: at -->`. Only that line changes; the
 * caller bumps `updated` separately. Throws when the task does not exist or is already ticked.
 */
export function tickTask(text: string, source: string, task: number, at: string): string {
  if (!tickTime.safeParse(at).success) {
    throw new PlanInputError(`tick time ${JSON.stringify(at)} is not an ISO timestamp (e.g. 2026-11-30T04:00:00.000Z)`)
  }
  const doc = parsePlanDocument(text, source)
  const target = doc.tasks.find((t) => t.number === task)
  if (!target) {
    const known = doc.tasks.length === 0 ? "the plan has no tasks" : `tasks are 1..${doc.tasks.length}`
    throw new PlanDocumentError(source, `no task ${task} to tick (${known})`)
  }
  if (target.ticked) {
    const when = target.tickedAt ? ` at ${target.tickedAt}` : ""
    throw new PlanDocumentError(source, `task ${task} is already ticked${when}`, target.line)
  }
  const starts = lineStarts(text)
  const from = starts[target.line - 1] ?? 0
  const next = starts[target.line] ?? text.length
  const raw = text.slice(from, next)
  const terminator = /\r?\n$/.exec(raw)?.[0] ?? ""
  const line = raw.slice(0, raw.length - terminator.length)
  const m = TASK_LINE.exec(line)
  const boxAt = line.indexOf("[")
  if (!m || boxAt === -1) throw new PlanDocumentError(source, `task ${task} is not on a task line`, target.line)
  const ticked = `${line.slice(0, boxAt)}[x]${line
    .slice(boxAt + 3)
    .replace(TICK_STAMP, "")
    .trimEnd()}`
  return `${text.slice(0, from)}${ticked} <!-- ticked: ${at} -->${terminator}${text.slice(next)}`
}
