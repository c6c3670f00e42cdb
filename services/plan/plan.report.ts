// The structure report plan_write and plan_edit return: size, outline, progress and warnings, so the model sees
// at once whether what it stored is the plan it meant.

import { splitLines } from "../documents/markdown.scan"
import { isCriteriaTitle, isTasksTitle } from "./plan.body"
import { findNarrative } from "./plan.markdown"
import type { PlanBody, PlanOutlineEntry } from "./plan.types"

export interface StructureReportOptions {
  /** Inclusive 1-based line range an edit wrote; the report then details only the sections it touches. */
  touchedLines?: [number, number]
}

interface Span {
  entry: PlanOutlineEntry
  /** Last line of the section: the line before the next heading, the narrative marker or the end of the text. */
  end: number
}

function spans(doc: PlanBody & { text: string }): Span[] {
  const lines = splitLines(doc.text)
  const narrative = findNarrative(lines)
  const last = narrative === -1 ? lines.length : narrative
  return doc.outline.map((entry, i) => {
    const next = doc.outline[i + 1]
    return { entry, end: Math.max(entry.line, next ? next.line - 1 : last) }
  })
}

function annotate(doc: PlanBody, entry: PlanOutlineEntry, tasksLine?: number, criteriaLine?: number): string {
  if (entry.line === tasksLine) return ` — ${ticked(doc)} ticked`
  if (entry.line === criteriaLine) return ` — ${plural(doc.criteria.length, "criterion", "criteria")}`
  const phase = doc.phases.find((p) => p.line === entry.line)
  if (phase) return ` [phase ${phase.index}${phase.marked ? "" : ", no section marker"}]`
  return ""
}

const ticked = (doc: PlanBody): string => `${doc.tasks.filter((t) => t.ticked).length}/${doc.tasks.length}`
const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`
const sectionCount = (n: number): string => plural(n, "section", "sections")

/**
 * "Plan stored: N lines, M chars." then the outline with line numbers, task and criterion counts, and the
 * warnings. With `touchedLines`, only the sections that range overlaps are listed.
 */
export function structureReport(doc: PlanBody & { text: string }, options: StructureReportOptions = {}): string {
  const out = [`Plan stored: ${splitLines(doc.text).length} lines, ${doc.text.length} chars.`]
  const all = spans(doc)
  const tasksLine = doc.outline.find((e) => isTasksTitle(e.title))?.line
  const criteriaLine = doc.outline.find((e) => isCriteriaTitle(e.title))?.line
  const rows = (chosen: readonly Span[], withEnd: boolean): string[] => {
    const labels = chosen.map((s) => (withEnd ? `L${s.entry.line}–${s.end}` : `L${s.entry.line}`))
    const width = Math.max(...labels.map((l) => l.length))
    return chosen.map((s, i) => {
      const heading = `${"#".repeat(s.entry.level)} ${s.entry.title}`
      return `  ${(labels[i] ?? "").padEnd(width)}  ${heading}${annotate(doc, s.entry, tasksLine, criteriaLine)}`
    })
  }
  const range = options.touchedLines
  if (range) {
    const [from, to] = range[0] <= range[1] ? range : [range[1], range[0]]
    const where = from === to ? `line ${from}` : `lines ${from}–${to}`
    const touched = all.filter((s) => s.entry.line <= to && s.end >= from)
    if (touched.length === 0) {
      out.push(`Sections: ${all.length} (the edit at ${where} is outside every section).`)
    } else {
      out.push(`The edit at ${where} touched ${touched.length} of ${sectionCount(all.length)}:`)
      out.push(...rows(touched, true))
    }
  } else if (all.length === 0) {
    out.push("Outline: no sections.")
  } else {
    out.push(`Outline (${sectionCount(all.length)}):`)
    out.push(...rows(all, false))
  }
  out.push(`Tasks: ${ticked(doc)} ticked. Acceptance criteria: ${doc.criteria.length}. Phases: ${doc.phases.length}.`)
  if (doc.warnings.length > 0) out.push("Warnings:", ...doc.warnings.map((w) => `- ${w}`))
  return out.join("\n")
}
