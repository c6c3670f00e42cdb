import { describe, expect, it } from "vitest"
import { parsePlanBody } from "../../../services/plan/plan.body"
import { parsePlanDocument } from "../../../services/plan/plan.document"
import { structureReport } from "../../../services/plan/plan.report"
import { DOCUMENT, NARRATIVE, SOURCE } from "./plan.fixtures"

const doc = parsePlanDocument(`${DOCUMENT}${NARRATIVE}`, SOURCE)

describe("structureReport", () => {
  it("reports size, the full outline, counts and no warnings block when there are none", () => {
    expect(structureReport(doc)).toBe(
      [
        `Plan stored: 33 lines, ${doc.text.length} chars.`,
        "Outline (5 sections):",
        "  L8   # Fix login timeout",
        "  L10  ## Goal",
        "  L14  ## Phase 1: Reproduce [phase 1]",
        "  L22  ## Tasks — 1/2 ticked",
        "  L27  ## Acceptance Criteria — 2 criteria",
        "Tasks: 1/2 ticked. Acceptance criteria: 2. Phases: 1.",
      ].join("\n"),
    )
  })

  it("details only the sections an edit touches, ending each at the next heading or the narrative", () => {
    expect(structureReport(doc, { touchedLines: [24, 28] })).toBe(
      [
        `Plan stored: 33 lines, ${doc.text.length} chars.`,
        "The edit at lines 24–28 touched 2 of 5 sections:",
        "  L22–26  ## Tasks — 1/2 ticked",
        "  L27–30  ## Acceptance Criteria — 2 criteria",
        "Tasks: 1/2 ticked. Acceptance criteria: 2. Phases: 1.",
      ].join("\n"),
    )
    expect(structureReport(doc, { touchedLines: [14, 14] })).toContain(
      "The edit at line 14 touched 1 of 5 sections:\n  L14–21  ## Phase 1: Reproduce [phase 1]\n",
    )
  })

  it("gives only the section count when the edit lands outside every section", () => {
    expect(structureReport(doc, { touchedLines: [3, 4] })).toBe(
      [
        `Plan stored: 33 lines, ${doc.text.length} chars.`,
        "Sections: 5 (the edit at lines 3–4 is outside every section).",
        "Tasks: 1/2 ticked. Acceptance criteria: 2. Phases: 1.",
      ].join("\n"),
    )
    expect(structureReport(doc, { touchedLines: [32, 33] })).toContain("Sections: 5 (the edit at lines 32–33")
  })

  it("lists warnings and unmarked phases", () => {
    const text = "## Phase 1: Go\n## Tasks\n## Acceptance Criteria\n- ok\n"
    const report = structureReport({ ...parsePlanBody(text, "body"), text })
    expect(report).toBe(
      [
        "Plan stored: 4 lines, 52 chars.",
        "Outline (3 sections):",
        "  L1  ## Phase 1: Go [phase 1, no section marker]",
        "  L2  ## Tasks — 0/0 ticked",
        "  L3  ## Acceptance Criteria — 1 criterion",
        "Tasks: 0/0 ticked. Acceptance criteria: 1. Phases: 1.",
        "Warnings:",
        '- line 1: phase "Phase 1: Go" has no <!-- forge-section --> marker line before it',
        '- not approvable yet: the plan has no tasks (add at least one "- [ ] 1. …" line under ## Tasks)',
      ].join("\n"),
    )
  })
})
