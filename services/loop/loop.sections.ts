import type { LoopSectionPlan } from "../../machines/loop/loop.gates"
import { isMarkerLine, scanMarkdown, splitLines } from "../documents/markdown.scan"
import { PHASE_TITLE } from "../plan/plan.body"
import { findNarrative, SECTION_MARKER } from "../plan/plan.markdown"

// A plan's sections, decided once when its loop starts: each `## Phase N: Title` heading (as the plan parser reads
// phases) is one section, its text up to the next heading of its level or above; a plan without phases is one
// section, all of it. Deterministic: nothing here asks a model how to split the work. A loop needs no Tasks or
// Acceptance Criteria: its sections are its contract.

/** The sections of a plan body (the document without its frontmatter); how many a loop takes is its birth gate's. */
export function sectionsOfPlan(body: string, wholeTitle: string): LoopSectionPlan[] {
  const all = splitLines(body)
  const narrative = findNarrative(all)
  const lines = narrative === -1 ? all : all.slice(0, narrative)
  const scan = scanMarkdown(lines)
  const textOf = (from: number, to: number) =>
    lines
      .slice(from, to)
      .filter((l, i) => scan.fenced[from + i] || !isMarkerLine(l, SECTION_MARKER))
      .join("\n")
      .trim()
  const phases = scan.headings.filter((h) => PHASE_TITLE.test(h.title))
  if (phases.length === 0) {
    const content = textOf(0, lines.length)
    return content === "" ? [] : [{ title: wholeTitle, content }]
  }
  return phases.map((phase) => {
    const end = scan.headings.find((h) => h.index > phase.index && h.level <= phase.level)?.index ?? lines.length
    const title = (PHASE_TITLE.exec(phase.title)?.[2] ?? "").trim() || phase.title
    const content = textOf(phase.index + 1, end)
    return { title, content: content === "" ? title : content }
  })
}
