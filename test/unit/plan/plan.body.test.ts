import { describe, expect, it } from "vitest"
import { approvalProblems, parsePlanBody } from "../../../services/plan/plan.body"

const parse = (lines: readonly string[]) => parsePlanBody(`${lines.join("\n")}\n`, "body.md")

describe("tasks", () => {
  it("accepts the Task List heading, any case, and other bullet markers", () => {
    const body = parse(["### task list:", "* [X] 1. a", "+ [ ] 2. b", "## Acceptance Criteria", "- ok"])
    expect(body.tasks.map((t) => [t.number, t.text, t.ticked])).toEqual([
      [1, "a", true],
      [2, "b", false],
    ])
  })

  it("reads tasks from the first Tasks section only and warns about a second one", () => {
    const body = parse(["## Tasks", "- [ ] 1. real", "## Acceptance Criteria", "- ok", "## Tasks", "- [ ] 7. ignored, never validated", "- [ ] also ignored"])
    expect(body.tasks.map((t) => t.text)).toEqual(["real"])
    expect(body.warnings).toEqual(['line 5: a second "Tasks" section is ignored; only the first one counts'])
  })

  it("ends the Tasks section at the next heading of the same or a higher level", () => {
    const body = parse(["## Tasks", "- [ ] 1. a", "### Backend", "- [ ] 2. b", "## Notes", "- a plain bullet is fine here", "## Acceptance Criteria", "- ok"])
    expect(body.tasks.map((t) => t.number)).toEqual([1, 2])
  })

  it("ends a top-level Tasks section at a deeper Acceptance Criteria heading", () => {
    const body = parse(["# Tasks", "- [ ] 1. a", "## Acceptance Criteria", "- ok"])
    expect(body.tasks.map((t) => t.text)).toEqual(["a"])
    expect(body.criteria.map((c) => c.text)).toEqual(["ok"])
  })

  it("ignores indented lines, prose and fenced code inside Tasks", () => {
    const body = parse([
      "## Tasks",
      "Do these in order.",
      "- [ ] 1. a",
      "  - [ ] nested checkbox is detail",
      "   1. indented numbering is detail",
      "~~~",
      "- [ ] inside a fence",
      "~~~",
      "- [ ] 2. b",
      "## Acceptance Criteria",
      "- ok",
    ])
    expect(body.tasks.map((t) => [t.number, t.line])).toEqual([
      [1, 3],
      [2, 9],
    ])
  })

  it("ignores headings and markers inside fences when finding sections", () => {
    const body = parse(["```md", "## Tasks", "- [ ] 1. fake", "```", "## Tasks", "- [ ] 1. real", "## Acceptance Criteria", "- ok"])
    expect(body.tasks.map((t) => [t.text, t.line])).toEqual([["real", 6]])
    expect(body.outline.map((h) => h.line)).toEqual([5, 7])
  })
})

describe("acceptance criteria", () => {
  it("reads dash, star, numbered and checkbox bullets, skipping prose, sub-items and empty bullets", () => {
    const body = parse([
      "## Tasks",
      "- [ ] 1. a",
      "## Acceptance criteria",
      "Each must hold:",
      "- Login succeeds",
      "  - detail of the first criterion",
      "* [ ] The suite is green",
      "- [x] Docs updated",
      "3. Numbered",
      "-",
      "## Risks",
      "- not a criterion",
    ])
    expect(body.criteria).toEqual([
      { index: 1, text: "Login succeeds", line: 5 },
      { index: 2, text: "The suite is green", line: 7 },
      { index: 3, text: "Docs updated", line: 8 },
      { index: 4, text: "Numbered", line: 9 },
    ])
  })
})

describe("phases", () => {
  it("marks phases preceded by the section marker, blank lines allowed, and warns about the rest", () => {
    const body = parse([
      "<!-- forge-section -->",
      "",
      "## Phase 1: Reproduce",
      "text",
      "## Phase 2 — Fix",
      "<!-- forge-section -->",
      "## Phase 3",
      "## Tasks",
      "- [ ] 1. a",
      "## Acceptance Criteria",
      "- ok",
    ])
    expect(body.phases).toEqual([
      { index: 1, title: "Reproduce", line: 3, marked: true },
      { index: 2, title: "Fix", line: 5, marked: false },
      { index: 3, title: "Phase 3", line: 7, marked: true },
    ])
    expect(body.warnings).toEqual(['line 5: phase "Phase 2 — Fix" has no <!-- forge-section --> marker line before it'])
  })

  it("warns about a stray marker and a phase number out of sequence", () => {
    const body = parse([
      "<!-- forge-section -->",
      "## Goal",
      "<!-- forge-section -->",
      "## Phase 3: Late",
      "## Tasks",
      "- [ ] 1. a",
      "## Acceptance Criteria",
      "- ok",
      "<!-- forge-section -->",
    ])
    expect(body.warnings).toEqual([
      'line 4: phase "Phase 3: Late" is numbered 3 but is phase 1 in order',
      'line 1: <!-- forge-section --> is not followed by a "## Phase N: Title" heading',
      'line 9: <!-- forge-section --> is not followed by a "## Phase N: Title" heading',
    ])
  })
})

describe("outline", () => {
  it("lists ATX headings with their levels, stripping closing hashes, and stops at the narrative", () => {
    const body = parse([
      "# Title #",
      "#not-a-heading",
      "    # indented code, not a heading",
      "###### Deep",
      "## Tasks",
      "- [ ] 1. a",
      "## Acceptance Criteria",
      "- ok",
      "<!-- forge-narrative -->",
      "## 2026-11-30T05:00:00.000Z — closed",
    ])
    expect(body.outline).toEqual([
      { level: 1, title: "Title", line: 1 },
      { level: 6, title: "Deep", line: 4 },
      { level: 2, title: "Tasks", line: 5 },
      { level: 2, title: "Acceptance Criteria", line: 7 },
    ])
  })
})

describe("warnings that keep a draft storable", () => {
  it("reports missing tasks and criteria as warnings and as data", () => {
    const body = parse(["## Tasks", "Nothing decided yet.", "## Acceptance Criteria"])
    expect(body.tasks).toEqual([])
    expect(body.criteria).toEqual([])
    expect(approvalProblems(body)).toEqual([
      'the plan has no tasks (add at least one "- [ ] 1. …" line under ## Tasks)',
      'the plan has no acceptance criteria (add at least one "- …" bullet under ## Acceptance Criteria)',
    ])
    expect(body.warnings).toEqual(approvalProblems(body).map((p) => `not approvable yet: ${p}`))
  })

  it("has no approval problems with one task and one criterion", () => {
    expect(approvalProblems(parse(["## Tasks", "- [ ] 1. a", "## Acceptance Criteria", "- ok"]))).toEqual([])
  })

  it("warns about a code fence that is never closed", () => {
    const body = parse(["## Tasks", "- [ ] 1. a", "## Acceptance Criteria", "- ok", "```", "## Later"])
    expect(body.warnings).toEqual(["line 5: code fence is never closed; headings after it are not read"])
  })
})
