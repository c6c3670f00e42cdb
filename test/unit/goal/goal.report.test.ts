import { describe, expect, it } from "vitest"
import type { GoalEvent } from "../../../machines/goal/goal.machine"
import { goalOverview } from "../../../services/goal/goal.report"
import { T0, arm } from "../machines/goal.fixtures"
import { complete, from, run } from "../machines/goal.machine.helpers"

// /goal's overview of a live goal with an audit: where the audit stands, how the last one ended and what it left open.

const AUDITOR = "ses_auditor"
const armed = () => run([arm, { type: "dialog.allow", dialog: 1, now: T0, auditBase: "tree" }], { audit: true })
const bug: GoalEvent = {
  type: "goal.review.write",
  session: AUDITOR,
  finding: { file: "src/login.ts", line: 12, severity: "bug", description: "the timeout is never cleared", scenario: "log in twice" },
}
const overview = (live: ReturnType<typeof armed>) => goalOverview({ live, finished: undefined, queue: [], now: T0 + 60_000 })

describe("goalOverview with an audit", () => {
  it("says the audit is required before any ran, and names the running audit's session", () => {
    expect(overview(armed())).toContain("  audit: required (no audit run yet)")
    expect(overview(from(armed(), complete(), { type: "goal.audit.opened", session: AUDITOR }))).toContain(
      "  audit: required (no audit run yet), audit 1 running in ses_auditor",
    )
  })

  it("lists what a dirty audit left open, with the auditor's summary", () => {
    const dirty = from(armed(), complete(), { type: "goal.audit.opened", session: AUDITOR }, bug, {
      type: "goal.audit.done",
      session: AUDITOR,
      summary: "one bug in the login flow",
      now: T0 + 5_000,
    })
    expect(overview(dirty)).toContain(
      [
        "  audit: required; audit 1 dirty",
        "  last audit dirty: one bug in the login flow",
        "  open findings:",
        "  - bug src/login.ts:12 — the timeout is never cleared (scenario: log in twice)",
      ].join("\n"),
    )
  })

  it("says nothing of an audit for a goal born without one", () => {
    expect(overview(run([arm, { type: "dialog.allow", dialog: 1, now: T0 }]))).not.toContain("audit")
  })
})
