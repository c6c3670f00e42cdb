import { describe, expect, it } from "vitest"
import { MAX_LOOP_SECTIONS } from "../../machines/loop/loop.gates"
import { sectionsOfPlan } from "../../services/loop/loop.sections"

// A plan's sections as a loop reads them once, at its start: one per `## Phase N: Title`, each up to the next heading
// of its level or above; a plan without phases is one section.

const PLAN = `# Ship the parser

## Goal
Parse and print arithmetic expressions.

<!-- forge-section -->
## Phase 1: Parser
Write a recursive-descent parser.

### Notes
Keep the lexer as it is.

<!-- forge-section -->
## Phase 2: Printer
Print with minimal parentheses.

## Tasks
- [ ] 1. Write the parser
- [ ] 2. Write the printer

## Acceptance Criteria
- npm test passes
`

describe("sectionsOfPlan", () => {
  it("makes each phase a section: its title, its text up to the next heading of its level, markers left out", () => {
    expect(sectionsOfPlan(PLAN, "Ship the parser")).toEqual([
      // A deeper heading belongs to its phase; the marker line before Phase 2 is not part of Phase 1.
      { title: "Parser", content: "Write a recursive-descent parser.\n\n### Notes\nKeep the lexer as it is." },
      // The headings after the last phase (Tasks, Acceptance Criteria) are not swallowed by it.
      { title: "Printer", content: "Print with minimal parentheses." },
    ])
  })

  it("ends the last phase at `## Acceptance Criteria` when it comes right after", () => {
    const plan = "<!-- forge-section -->\n## Phase 1: Only\nDo it.\n\n## Acceptance Criteria\n- it is done\n"
    expect(sectionsOfPlan(plan, "t")).toEqual([{ title: "Only", content: "Do it." }])
  })

  it("ends a phase at a heading above its level, and keeps deeper ones", () => {
    const plan = "# Plan\n### Phase 1: Deep\nfirst\n#### detail\nmore\n### Phase 2: Next\nsecond\n## Risks\nnone\n"
    expect(sectionsOfPlan(plan, "t")).toEqual([
      { title: "Deep", content: "first\n#### detail\nmore" },
      { title: "Next", content: "second" },
    ])
  })

  it("keeps a marker line quoted in a code block of the phase", () => {
    const plan = "## Phase 1: Markers\nWrite this line:\n```md\n<!-- forge-section -->\n```\n"
    expect(sectionsOfPlan(plan, "t")).toEqual([{ title: "Markers", content: "Write this line:\n```md\n<!-- forge-section -->\n```" }])
  })

  it("a phase without text is its own title; a phase heading without a title is the heading", () => {
    const plan = "## Phase 1: Empty\n\n## Phase 2\nsecond\n"
    expect(sectionsOfPlan(plan, "t")).toEqual([
      { title: "Empty", content: "Empty" },
      { title: "Phase 2", content: "second" },
    ])
  })

  it("reads nothing after the narrative marker", () => {
    const plan = "## Phase 1: Parser\nparse\n<!-- forge-narrative -->\n## Phase 2: Log\nwhat happened\n"
    expect(sectionsOfPlan(plan, "t")).toEqual([{ title: "Parser", content: "parse" }])
  })

  it("a plan without phases is one section: the whole text, titled as the plan", () => {
    expect(sectionsOfPlan(PLAN.replace(/## Phase \d: /g, "## Step: "), "Ship the parser")).toEqual([
      {
        title: "Ship the parser",
        content: PLAN.replace(/## Phase \d: /g, "## Step: ")
          .replace(/<!-- forge-section -->\n/g, "")
          .trim(),
      },
    ])
  })

  it("a plan given as plain text (no Tasks, no criteria) is one section", () => {
    expect(sectionsOfPlan("Rename the `--verbose` flag to `--debug` everywhere.\n", "Rename the flag")).toEqual([
      { title: "Rename the flag", content: "Rename the `--verbose` flag to `--debug` everywhere." },
    ])
  })

  it("gives every phase, past 24 too: how many a loop takes is its start gate's", () => {
    const plan = Array.from({ length: MAX_LOOP_SECTIONS + 2 }, (_, i) => `<!-- forge-section -->\n## Phase ${i + 1}: Step ${i + 1}\nDo step ${i + 1}.\n`).join(
      "\n",
    )
    const sections = sectionsOfPlan(plan, "t")
    expect(sections).toHaveLength(MAX_LOOP_SECTIONS + 2)
    expect(sections.at(0)).toEqual({ title: "Step 1", content: "Do step 1." })
    expect(sections.at(-1)).toEqual({ title: `Step ${MAX_LOOP_SECTIONS + 2}`, content: `Do step ${MAX_LOOP_SECTIONS + 2}.` })
  })

  it("an empty plan has no section (nor one of blanks and markers only)", () => {
    expect(sectionsOfPlan("", "t")).toEqual([])
    expect(sectionsOfPlan("  \n\n\t\n", "t")).toEqual([])
    expect(sectionsOfPlan("<!-- forge-section -->\n\n", "t")).toEqual([])
  })
})
