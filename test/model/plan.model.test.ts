import { describe, expect, it } from "vitest"
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

describe("plan machine", () => {
  it("reaches every state of the machine", () => {
    const paths = createTestModel(planMachine, { input, events: eventCases }).getShortestPaths({ limit: 5000, allowDuplicatePaths: true })
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
  events: eventCases,
  start: startPlanSut,
  limit: 5000,
})
