import { describe, expect, it } from "vitest"
import { planCallFields } from "../../../adapters/opencode/plan/plan.screen"
import type { PlanSummary } from "../../../services/plan/plan.queries"

// The fields a plan call's TUI line carries, built from what the runtime holds without waiting.

const summary: PlanSummary = {
  planPath: ".opencode/plan/2026-12-02-x.md",
  title: "Ship X",
  status: "approved",
  pending: null,
  session: "s1",
  ticked: 1,
  tasks: 3,
  criteria: 2,
  updated: "2026-12-02T00:00:00Z",
}
const plan = { planPath: summary.planPath, summary }

describe("planCallFields", () => {
  it("names the plan on every call, and the document on the calls whose dialog decides about it", () => {
    expect(planCallFields("plan_tick", { task: 2 }, plan)).toEqual({ plan: "Ship X" })
    expect(planCallFields("plan_discard", { reason: "moot" }, plan)).toEqual({ plan: "Ship X", path: summary.planPath, decide: "discard" })
    expect(planCallFields("plan_discard", { supersede: ".opencode/goal/g.md" }, plan)).toMatchObject({ decide: "supersede by .opencode/goal/g.md" })
  })

  it("shows the path when this process has not read the plan yet (after a restart), and nothing without a live plan", () => {
    expect(planCallFields("plan_approve", {}, { planPath: summary.planPath, summary: undefined })).toEqual({ path: summary.planPath })
    expect(planCallFields("plan_read", {}, undefined)).toEqual({})
    expect(planCallFields("plan_write", { content: "no heading", title: " Named " }, undefined)).toEqual({ plan: "Named", status: "new draft" })
    expect(planCallFields("plan_write", { content: 42 }, undefined)).toEqual({})
  })
})
