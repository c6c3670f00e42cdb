import { describe, expect, it } from "vitest"
import { appendNarrative, parsePlanBody, parsePlanDocument, renderPlanDocument, tickTask, withFrontmatter } from "../../../services/plan/plan.document"
import { PlanDocumentError, PlanInputError } from "../../../services/plan/plan.errors"
import type { PlanFrontmatter } from "../../../services/plan/plan.types"
import { BODY, DOCUMENT, NARRATIVE, SOURCE, thrown, withBodyLines, withFrontmatterLines } from "./plan.fixtures"

const FM: PlanFrontmatter = {
  status: "draft",
  title: "Fix login timeout",
  created: "2026-11-30T03:00:00.000Z",
  updated: "2026-11-30T03:05:00.000Z",
  session: "ses_abc123",
}

function documentError(fn: () => unknown): PlanDocumentError {
  const error = thrown(fn)
  expect(error).toBeInstanceOf(PlanDocumentError)
  return error as PlanDocumentError
}

describe("parsePlanDocument", () => {
  it("reads frontmatter, tasks, criteria, phases and outline with document line numbers", () => {
    const doc = parsePlanDocument(DOCUMENT, SOURCE)
    expect(doc.frontmatter).toEqual(FM)
    expect(doc.body).toBe(BODY)
    expect(doc.text).toBe(DOCUMENT)
    expect(doc.tasks).toEqual([
      { number: 1, text: "Write a failing test", ticked: false, line: 23 },
      { number: 2, text: "Raise the timeout", ticked: true, tickedAt: "2026-11-30T04:00:00.000Z", line: 25 },
    ])
    expect(doc.criteria).toEqual([
      { index: 1, text: "Login succeeds after 40 s of idle", line: 28 },
      { index: 2, text: "The suite is green", line: 29 },
    ])
    expect(doc.phases).toEqual([{ index: 1, title: "Reproduce", line: 14, marked: true }])
    expect(doc.outline).toEqual([
      { level: 1, title: "Fix login timeout", line: 8 },
      { level: 2, title: "Goal", line: 10 },
      { level: 2, title: "Phase 1: Reproduce", line: 14 },
      { level: 2, title: "Tasks", line: 22 },
      { level: 2, title: "Acceptance Criteria", line: 27 },
    ])
    expect(doc.warnings).toEqual([])
  })

  it("defaults updated to created and treats an empty session as absent", () => {
    const text = withFrontmatterLines(["status: approved", "title: T", "created: 2026-11-30T03:00:00Z", "session:"])
    expect(parsePlanDocument(text, SOURCE).frontmatter).toEqual({
      status: "approved",
      title: "T",
      created: "2026-11-30T03:00:00Z",
      updated: "2026-11-30T03:00:00Z",
    })
  })

  it("reads a superseded plan's successor and ignores unknown keys", () => {
    const text = withFrontmatterLines([
      "status: superseded",
      "title: T",
      "created: 2026-11-30T03:00:00.000Z",
      "updated: 2026-11-30T03:00:00.000Z",
      "successor: .opencode/crew/2026-12-01-x.md",
      "owner: someone",
    ])
    expect(parsePlanDocument(text, SOURCE).frontmatter.successor).toBe(".opencode/crew/2026-12-01-x.md")
  })

  it("accepts CRLF line endings", () => {
    const doc = parsePlanDocument(DOCUMENT.replace(/\n/g, "\r\n"), SOURCE)
    expect(doc.frontmatter).toEqual(FM)
    expect(doc.tasks.map((t) => [t.number, t.text, t.line])).toEqual([
      [1, "Write a failing test", 23],
      [2, "Raise the timeout", 25],
    ])
  })
})

describe("parsePlanBody", () => {
  it("validates a body alone, with lines relative to the body by default", () => {
    const body = parsePlanBody(BODY, "plan_write")
    expect(body.tasks.map((t) => t.line)).toEqual([16, 18])
    expect(parsePlanBody(BODY, "plan_write", 7).tasks.map((t) => t.line)).toEqual([23, 25])
  })

  it("names the source and body line in its errors", () => {
    const error = documentError(() => parsePlanBody("## Tasks\n- [ ] x\n## Acceptance Criteria\n", "plan_write", 7))
    expect(error.message).toBe('plan_write:9: malformed task line "- [ ] x" (expected "- [ ] N. text", N being the task number)')
  })
})

describe("renderPlanDocument", () => {
  it("writes the frontmatter in canonical order and keeps the body byte for byte", () => {
    const text = renderPlanDocument(FM, BODY)
    expect(text).toBe(
      [
        "---",
        "status: draft",
        "title: Fix login timeout",
        "created: 2026-11-30T03:00:00.000Z",
        "updated: 2026-11-30T03:05:00.000Z",
        "session: ses_abc123",
        "---",
        BODY,
      ].join("\n"),
    )
    const doc = parsePlanDocument(text, SOURCE)
    expect(doc.frontmatter).toEqual(FM)
    expect(doc.body).toBe(BODY)
  })

  it("quotes titles YAML would read as something else", () => {
    for (const title of ["2026", "true", "a: b", "# not a comment", "null", "---", "[x]", "'quoted'", " padded "]) {
      const text = renderPlanDocument({ ...FM, title }, BODY)
      expect(parsePlanDocument(text, SOURCE).frontmatter.title).toBe(title)
    }
  })

  it("refuses a frontmatter that would not parse back", () => {
    expect(() => renderPlanDocument({ ...FM, title: "two\nlines" }, BODY)).toThrow(PlanInputError)
    expect(() => renderPlanDocument({ ...FM, status: "superseded" }, BODY)).toThrow(/no successor/)
    expect(() => renderPlanDocument({ ...FM, created: "today" }, BODY)).toThrow(/not an ISO timestamp/)
  })
})

describe("withFrontmatter", () => {
  const split = (text: string) => text.slice(text.indexOf("\n---\n") + 5)

  it("rewrites only the patched keys and keeps the body byte-identical", () => {
    const text = `${DOCUMENT}${NARRATIVE}`
    const next = withFrontmatter(text, SOURCE, { status: "approved", updated: "2026-11-30T06:00:00.000Z" })
    expect(next).toBe(text.replace("status: draft", "status: approved").replace("updated: 2026-11-30T03:05:00.000Z", "updated: 2026-11-30T06:00:00.000Z"))
    expect(split(next)).toBe(split(text))
  })

  it("keeps comments, unknown keys and layout of untouched lines", () => {
    const text = withFrontmatterLines([
      "# written by hand",
      "status: draft   # still thinking",
      "title: Fix login timeout",
      "owner: me",
      "created: 2026-11-30T03:00:00.000Z",
    ])
    const next = withFrontmatter(text, SOURCE, { title: "Fix: the login timeout" })
    expect(next).toBe(text.replace("title: Fix login timeout", 'title: "Fix: the login timeout"'))
  })

  it("appends absent keys before the closing line and removes optional keys set to undefined", () => {
    const superseded = withFrontmatter(DOCUMENT, SOURCE, {
      status: "superseded",
      successor: ".opencode/crew/2026-12-01-x.md",
      session: undefined,
    })
    expect(superseded).toBe(
      DOCUMENT.replace("status: draft", "status: superseded").replace("session: ses_abc123\n", "successor: .opencode/crew/2026-12-01-x.md\n"),
    )
    expect(parsePlanDocument(superseded, SOURCE).frontmatter.successor).toBe(".opencode/crew/2026-12-01-x.md")
  })

  it("rewrites a multi-line value as one entry", () => {
    const text = withFrontmatterLines(["status: draft", "title: >-", "  Fix login", "  timeout", "created: 2026-11-30T03:00:00.000Z"])
    const next = withFrontmatter(text, SOURCE, { title: "Short" })
    expect(next).toBe(withFrontmatterLines(["status: draft", "title: Short", "created: 2026-11-30T03:00:00.000Z"]))
  })

  it("keeps CRLF line endings on the lines it writes", () => {
    const text = DOCUMENT.replace(/\n/g, "\r\n")
    const next = withFrontmatter(text, SOURCE, { status: "approved", session: "ses_other" })
    expect(next).toBe(text.replace("status: draft", "status: approved").replace("ses_abc123", "ses_other"))
  })

  it("refuses a patch that leaves an invalid frontmatter, naming the file and line", () => {
    const error = documentError(() => withFrontmatter(DOCUMENT, SOURCE, { status: "superseded" }))
    expect(error.message).toBe(`${SOURCE}:2: status is superseded but no successor is given`)
    expect(() => withFrontmatter(DOCUMENT, SOURCE, { status: "drafty" as never })).toThrow(`${SOURCE}:2: unknown status "drafty"`)
  })

  it("refuses to remove a required key", () => {
    expect(() => withFrontmatter(DOCUMENT, SOURCE, { title: undefined })).toThrow(PlanInputError)
  })

  it("refuses a document without frontmatter", () => {
    expect(documentError(() => withFrontmatter(BODY, SOURCE, { status: "approved" })).line).toBe(1)
  })
})

describe("tickTask", () => {
  it("ticks one task line and changes no other byte", () => {
    const text = `${DOCUMENT}${NARRATIVE}`
    const next = tickTask(text, SOURCE, 1, "2026-11-30T06:00:00.000Z")
    expect(next).toBe(text.replace("- [ ] 1. Write a failing test\n", "- [x] 1. Write a failing test <!-- ticked: 2026-11-30T06:00:00.000Z -->\n"))
    const task = parsePlanDocument(next, SOURCE).tasks[0]
    expect(task).toEqual({
      number: 1,
      text: "Write a failing test",
      ticked: true,
      tickedAt: "2026-11-30T06:00:00.000Z",
      line: 23,
    })
  })

  it("ticks the last line of a document without a final newline, and CRLF lines", () => {
    const text = withBodyLines(["## Acceptance Criteria", "- ok", "## Tasks", "- [ ] 1. last"]).trimEnd()
    expect(tickTask(text, SOURCE, 1, "2026-11-30T06:00:00Z")).toBe(`${text.replace("- [ ] 1. last", "- [x] 1. last")} <!-- ticked: 2026-11-30T06:00:00Z -->`)
    const crlf = DOCUMENT.replace(/\n/g, "\r\n")
    expect(tickTask(crlf, SOURCE, 1, "2026-11-30T06:00:00Z")).toBe(
      crlf.replace("- [ ] 1. Write a failing test", "- [x] 1. Write a failing test <!-- ticked: 2026-11-30T06:00:00Z -->"),
    )
  })

  it("refuses an unknown task", () => {
    const error = documentError(() => tickTask(DOCUMENT, SOURCE, 3, "2026-11-30T06:00:00.000Z"))
    expect(error.message).toBe(`${SOURCE}: no task 3 to tick (tasks are 1..2)`)
  })

  it("refuses a task that is already ticked, naming its line and time", () => {
    const error = documentError(() => tickTask(DOCUMENT, SOURCE, 2, "2026-11-30T06:00:00.000Z"))
    expect(error.message).toBe(`${SOURCE}:25: task 2 is already ticked at 2026-11-30T04:00:00.000Z`)
  })

  it("never ticks a look-alike line in the narrative", () => {
    const text = `${DOCUMENT}\n<!-- forge-narrative -->\n- [ ] 3. fake\n`
    expect(() => tickTask(text, SOURCE, 3, "2026-11-30T06:00:00.000Z")).toThrow(/no task 3/)
  })

  it("refuses a tick time that is not an ISO timestamp", () => {
    expect(() => tickTask(DOCUMENT, SOURCE, 1, "now -->")).toThrow(PlanInputError)
  })
})

describe("appendNarrative keeps the document parseable and unchanged before its end", () => {
  it("does not change status, tasks or criteria", () => {
    const before = parsePlanDocument(DOCUMENT, SOURCE)
    const next = appendNarrative(DOCUMENT, {
      at: "2026-11-30T07:00:00.000Z",
      kind: "abandoned",
      reason: "## Tasks\n- [ ] 3. injected\n---\nstatus: done",
    })
    expect(next.startsWith(DOCUMENT)).toBe(true)
    const after = parsePlanDocument(next, SOURCE)
    expect(after.frontmatter).toEqual(before.frontmatter)
    expect(after.tasks).toEqual(before.tasks)
    expect(after.criteria).toEqual(before.criteria)
    expect(after.outline).toEqual(before.outline)
  })
})
