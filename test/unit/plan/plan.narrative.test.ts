import { describe, expect, it } from "vitest"
import { parsePlanDocument } from "../../../services/plan/plan.document"
import { PlanInputError } from "../../../services/plan/plan.errors"
import { appendNarrative } from "../../../services/plan/plan.narrative"
import { DOCUMENT, SOURCE } from "./plan.fixtures"

const AT = "2026-11-30T05:00:00.000Z"

describe("appendNarrative", () => {
  it("opens the narrative with its marker and records one line per criterion", () => {
    const next = appendNarrative(DOCUMENT, {
      at: AT,
      kind: "closed",
      results: [
        { criterion: "Login succeeds after 40 s of idle", pass: true, evidence: "test/login.test.ts passes" },
        { criterion: "The suite\nis green", pass: false, evidence: "" },
      ],
    })
    expect(next).toBe(
      `${DOCUMENT}\n<!-- forge-narrative -->\n## ${AT} — closed\n` +
        "> PASS: Login succeeds after 40 s of idle — evidence: test/login.test.ts passes\n" +
        "> FAIL: The suite is green — evidence: (none given)\n",
    )
  })

  it("adds later sections without a second marker", () => {
    const once = appendNarrative(DOCUMENT, { at: AT, kind: "abandoned" })
    const twice = appendNarrative(once, { at: "2026-11-30T06:00:00.000Z", kind: "abandoned", reason: "again" })
    expect(twice).toBe(`${once}\n## 2026-11-30T06:00:00.000Z — abandoned\n> Reason: again\n`)
    expect(twice.split("<!-- forge-narrative -->").length).toBe(2)
  })

  it("writes (none given) for a missing or blank reason", () => {
    expect(appendNarrative(DOCUMENT, { at: AT, kind: "abandoned", reason: "  " })).toBe(
      `${DOCUMENT}\n<!-- forge-narrative -->\n## ${AT} — abandoned\n> Reason: (none given)\n`,
    )
  })

  it("keeps a reason verbatim, quoting every line so none can start a heading or a marker", () => {
    const reason = "moved to a crew\n\n## Tasks\n<!-- forge-section -->\r\n---\rstatus: done"
    const next = appendNarrative(DOCUMENT, { at: AT, kind: "superseded", reason, successor: ".opencode/crew/x.md" })
    const appended = next.slice(DOCUMENT.length)
    expect(appended).toBe(
      [
        "",
        "<!-- forge-narrative -->",
        `## ${AT} — superseded`,
        "> Reason: moved to a crew",
        ">",
        "> ## Tasks",
        "> <!-- forge-section -->",
        "> ---",
        "> status: done",
        "> Successor: .opencode/crew/x.md",
        "",
      ].join("\n"),
    )
    for (const line of appended.split("\n").slice(3, -1)) expect(line.startsWith(">")).toBe(true)
  })

  it("terminates an unterminated last line first and keeps CRLF endings", () => {
    const text = DOCUMENT.trimEnd()
    expect(appendNarrative(text, { at: AT, kind: "abandoned" }).startsWith(`${text}\n\n<!-- forge-narrative -->`)).toBe(true)
    const crlf = DOCUMENT.replace(/\n/g, "\r\n")
    expect(appendNarrative(crlf, { at: AT, kind: "abandoned" })).toBe(
      `${crlf}\r\n<!-- forge-narrative -->\r\n## ${AT} — abandoned\r\n> Reason: (none given)\r\n`,
    )
  })

  it("leaves status, tasks and criteria as they were", () => {
    const before = parsePlanDocument(DOCUMENT, SOURCE)
    const after = parsePlanDocument(
      appendNarrative(DOCUMENT, {
        at: AT,
        kind: "closed",
        results: [{ criterion: "## Acceptance Criteria", pass: true, evidence: "- [x] 3. injected" }],
      }),
      SOURCE,
    )
    expect([after.frontmatter, after.tasks, after.criteria, after.phases]).toEqual([before.frontmatter, before.tasks, before.criteria, before.phases])
  })

  it("refuses an entry it cannot write safely", () => {
    expect(() => appendNarrative(DOCUMENT, { at: "now\n# x", kind: "abandoned" })).toThrow(PlanInputError)
    expect(() => appendNarrative(DOCUMENT, { at: AT, kind: "superseded", successor: "" })).toThrow("invalid narrative entry (successor): successor is empty")
    expect(() => appendNarrative(DOCUMENT, { at: AT, kind: "superseded", successor: "a\n## b" })).toThrow(/single line/)
  })
})
