import { describe, expect, it } from "vitest"
import { parsePlanDocument } from "../../../services/plan/plan.document"
import { PlanDocumentError } from "../../../services/plan/plan.errors"
import { BODY, DOCUMENT, SOURCE, thrown, withBodyLines, withFrontmatterLines } from "./plan.fixtures"

function documentError(fn: () => unknown): PlanDocumentError {
  const error = thrown(fn)
  expect(error).toBeInstanceOf(PlanDocumentError)
  return error as PlanDocumentError
}

describe("parsePlanDocument errors name the file and the line", () => {
  const cases: { name: string; text: string; line: number; message: string }[] = [
    { name: "missing frontmatter", text: `# Plan\n${BODY}`, line: 1, message: "missing frontmatter" },
    { name: "frontmatter not at the very start", text: `\n${DOCUMENT}`, line: 1, message: "missing frontmatter" },
    {
      name: "unterminated frontmatter",
      text: "---\nstatus: draft\ntitle: T\n## Tasks\n",
      line: 1,
      message: "unterminated frontmatter",
    },
    {
      name: "YAML syntax error",
      text: withFrontmatterLines(["status: draft", "title: a: b", "created: 2026-11-30T03:00:00.000Z"]),
      line: 3,
      message: "YAML syntax error in frontmatter: Nested mappings are not allowed in compact mappings",
    },
    {
      name: "YAML duplicate key",
      text: withFrontmatterLines(["status: draft", "title: T", "created: 2026-11-30T03:00:00.000Z", "title: U"]),
      line: 5,
      message: "YAML syntax error in frontmatter: Map keys must be unique",
    },
    {
      name: "frontmatter that is not a mapping",
      text: withFrontmatterLines(["- status", "- draft"]),
      line: 2,
      message: "frontmatter must be a mapping",
    },
    {
      name: "unknown status",
      text: withFrontmatterLines(["title: Fix", "status: drafty", "created: 2026-11-30T03:00:00.000Z"]),
      line: 3,
      message: 'unknown status "drafty" (expected draft, approved, done, abandoned, superseded)',
    },
    {
      name: "missing status",
      text: withFrontmatterLines(["title: Fix", "created: 2026-11-30T03:00:00.000Z"]),
      line: 1,
      message: "missing status (expected draft, approved, done, abandoned, superseded)",
    },
    {
      name: "missing title",
      text: withFrontmatterLines(["status: draft", "created: 2026-11-30T03:00:00.000Z"]),
      line: 1,
      message: "missing title",
    },
    {
      name: "blank title",
      text: withFrontmatterLines(["status: draft", 'title: "  "', "created: 2026-11-30T03:00:00.000Z"]),
      line: 3,
      message: "title is empty",
    },
    {
      name: "title that is not text",
      text: withFrontmatterLines(["status: draft", "title: 2026", "created: 2026-11-30T03:00:00.000Z"]),
      line: 3,
      message: "title must be text, got 2026",
    },
    {
      name: "missing created",
      text: withFrontmatterLines(["status: draft", "title: T"]),
      line: 1,
      message: "missing created",
    },
    {
      name: "created that is not a timestamp",
      text: withFrontmatterLines(["status: draft", "title: T", "created: yesterday"]),
      line: 4,
      message: 'created "yesterday" is not an ISO timestamp',
    },
    {
      name: "superseded without successor",
      text: withFrontmatterLines(["status: superseded", "title: T", "created: 2026-11-30T03:00:00.000Z"]),
      line: 2,
      message: "status is superseded but no successor is given",
    },
    {
      name: "successor without supersession",
      text: withFrontmatterLines(["status: done", "title: T", "created: 2026-11-30T03:00:00.000Z", "successor: x.md"]),
      line: 5,
      message: "successor is only allowed when status is superseded (status is done)",
    },
    {
      name: "missing Tasks section",
      text: withBodyLines(["# Plan", "## Acceptance Criteria", "- works"]),
      line: 10,
      message: 'missing "## Tasks" section (none before the end of the plan)',
    },
    {
      name: "Tasks section only inside the narrative",
      text: withBodyLines(["# Plan", "<!-- forge-narrative -->", "## Tasks", "- [ ] 1. x", "## Acceptance Criteria"]),
      line: 9,
      message: 'missing "## Tasks" section (none before the <!-- forge-narrative --> line',
    },
    {
      name: "missing Acceptance Criteria section",
      text: withBodyLines(["# Plan", "## Tasks", "- [ ] 1. Do it"]),
      line: 10,
      message: 'missing "## Acceptance Criteria" section',
    },
    {
      name: "duplicate task number",
      text: withBodyLines(["## Tasks", "- [ ] 1. a", "- [ ] 2. b", "- [ ] 2. c", "## Acceptance Criteria", "- ok"]),
      line: 11,
      message: "duplicate task number 2 (already used on line 10)",
    },
    {
      name: "missing task number",
      text: withBodyLines(["## Tasks", "- [ ] 1. a", "- [ ] 3. c", "## Acceptance Criteria", "- ok"]),
      line: 10,
      message: "missing task number 2: task 3 follows task 1",
    },
    {
      name: "missing first task number",
      text: withBodyLines(["## Tasks", "- [ ] 2. b", "## Acceptance Criteria", "- ok"]),
      line: 9,
      message: "missing task number 1: task 2 follows the heading",
    },
    {
      name: "task numbers out of order",
      text: withBodyLines(["## Tasks", "- [ ] 1. a", "- [ ] 3. c", "- [ ] 2. b", "## Acceptance Criteria", "- ok"]),
      line: 11,
      message: "task numbers out of order: task 2 comes after task 3 (line 10)",
    },
    {
      name: "task line without a number",
      text: withBodyLines(["## Tasks", "- [ ] 1. a", "- [ ] write the docs", "## Acceptance Criteria", "- ok"]),
      line: 10,
      message: 'malformed task line "- [ ] write the docs" (expected "- [ ] N. text", N being the task number)',
    },
    {
      name: "numbered line without a box",
      text: withBodyLines(["## Tasks", "1. a", "## Acceptance Criteria", "- ok"]),
      line: 9,
      message: 'malformed task line "1. a"',
    },
    {
      name: "plain bullet in Tasks",
      text: withBodyLines(["## Tasks", "- [ ] 1. a", "- note", "## Acceptance Criteria", "- ok"]),
      line: 10,
      message: 'malformed task line "- note"',
    },
    {
      name: "task number zero",
      text: withBodyLines(["## Tasks", "- [ ] 0. a", "## Acceptance Criteria", "- ok"]),
      line: 9,
      message: "task number 0 is invalid",
    },
    {
      name: "task without text",
      text: withBodyLines(["## Tasks", "- [x] 1. <!-- ticked: 2026-11-30T04:00:00.000Z -->", "## Acceptance Criteria"]),
      line: 9,
      message: "task 1 has no text",
    },
  ]

  it.each(cases)("$name", ({ text, line, message }) => {
    const error = documentError(() => parsePlanDocument(text, SOURCE))
    expect(error.source).toBe(SOURCE)
    expect(error.line).toBe(line)
    expect(error.message.startsWith(`${SOURCE}:${line}: `)).toBe(true)
    expect(error.message).toContain(message)
  })

  it("reports the first of several frontmatter problems and counts the rest", () => {
    const error = documentError(() => parsePlanDocument(withFrontmatterLines(["status: drafty", "title: T", "created: no"]), SOURCE))
    expect(error.message).toBe(`${SOURCE}:2: unknown status "drafty" (expected draft, approved, done, abandoned, superseded) (+1 more frontmatter problem)`)
  })
})
