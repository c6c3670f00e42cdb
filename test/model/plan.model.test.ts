import { describe, expect, it } from "vitest"
import type { SnapshotFrom } from "xstate"
import { createTestModel } from "xstate/graph"
import { type PlanEvent, type PlanInput, planMachine } from "../../machines/plan.machine"
import { describeModel } from "./model.template"
import { SESSION, startPlanSut } from "./plan.sut"

// Paths generated from the plan machine itself drive the real service (runtime, plan document, SQLite), checking at
// every step that service, document and database agree with the model. `tool.use` is only ever asked, never sent:
// the service's gate asks `can()`, so the SUT replays it as that question and coverage counts it like a sent event.

const input: PlanInput = {
  planPath: ".opencode/plan/2026-11-30-model-plan.md",
  sessionId: SESSION,
  tasks: [{ number: 1, ticked: false }],
  criteria: ["c1"],
  document: "",
}

const eventCases: PlanEvent[] = [
  { type: "plan.revise", tasks: [{ number: 1, ticked: false }], criteria: ["c1"], document: "" },
  { type: "plan.revise", tasks: [], criteria: [], document: "" },
  { type: "plan.approve" },
  { type: "dialog.allow" },
  { type: "dialog.reject" },
  { type: "plan.tick", task: 1 },
  { type: "plan.tick", task: 2 },
  { type: "plan.close", checks: [{ criterion: "c1", pass: true, evidence: "ran it" }] },
  { type: "plan.close", checks: [{ criterion: "c1", pass: false, evidence: "failed" }] },
  { type: "plan.discard", by: "user", reason: "wrong approach" },
  { type: "plan.discard", by: "model", reason: "the model wants out" },
  { type: "plan.supersede", by: "user", successor: ".opencode/crew/2026-12-01-next.md", reason: "crew takes over" },
  { type: "plan.supersede", by: "model", successor: ".opencode/crew/2026-12-02-model.md", reason: "the model moves on" },
  { type: "plan.supersede", by: "user", successor: " " },
  { type: "plan.bind", sessionId: SESSION },
  { type: "tool.use", tool: "bash" },
  { type: "tool.use", tool: "read" },
]

/**
 * A document edit of the status line, as the world can make it: in a live plan, the statuses the machine takes (one
 * that passes a user-held gate is held; its own status drops what was held). A status that only tightens is followed
 * by the host outside the machine (test/integration/plan/plan.document-gate.test.ts). A finished plan gets one probe.
 */
function documentEdits(state: SnapshotFrom<typeof planMachine>): PlanEvent[] {
  const { tasks, criteria } = state.context
  const edit = (status: "draft" | "approved" | "done"): PlanEvent => ({ type: "plan.document.changed", status, tasks, criteria })
  if (state.status !== "active") return [edit("done")]
  return state.matches("draft") ? [edit("draft"), edit("approved"), edit("done")] : [edit("approved"), edit("done")]
}

const eventsIn = (state: SnapshotFrom<typeof planMachine>): PlanEvent[] => [...eventCases, ...documentEdits(state)]

describe("plan machine", () => {
  it("reaches every state of the machine", () => {
    const paths = createTestModel(planMachine, { input, events: eventsIn }).getShortestPaths({ limit: 5000, allowDuplicatePaths: true })
    const reached = new Set(paths.map((p) => JSON.stringify(p.state.value)))
    for (const value of [
      { draft: "editing" },
      { draft: "confirming" },
      { draft: "discarding" },
      { approved: "working" },
      { approved: "confirming" },
      "done",
      "abandoned",
      "superseded",
    ]) {
      expect(reached).toContain(JSON.stringify(value))
    }
  })
})

describeModel({
  machine: planMachine,
  configs: [{ name: "one task, one criterion", input }],
  events: eventsIn,
  start: startPlanSut,
  limit: 5000,
})
