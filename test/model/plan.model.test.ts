import { isDeepStrictEqual } from "node:util"
import { describe, expect, it } from "vitest"
import type { SnapshotFrom } from "xstate"
import { createTestModel } from "xstate/graph"
import { type PlanEvent, type PlanInput, planMachine } from "../../machines/plan/plan.machine"
import { describeModel } from "../../testing"
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

/**
 * The user's answers: in a dialog state, to the dialog open now and a stale one (to the dialog before it, which
 * another command or process closed); elsewhere an answer to the last dialog, which is closed.
 */
function dialogAnswers(state: SnapshotFrom<typeof planMachine>): PlanEvent[] {
  const { dialog } = state.context
  if (!state.hasTag("awaiting-user"))
    return [
      { type: "dialog.allow", dialog },
      { type: "dialog.reject", dialog },
    ]
  return [
    { type: "dialog.allow", dialog },
    { type: "dialog.reject", dialog },
    { type: "dialog.allow", dialog: dialog - 1 },
    { type: "dialog.reject", dialog: dialog - 1 },
  ]
}

/** Dialogs one path may open: two tell apart two dialogs in one state; more only repeat them (and never end the graph). */
const MAX_DIALOGS = 2
const OPENS_DIALOG = new Set(["plan.approve", "plan.close"])
const opensDialog = (event: PlanEvent): boolean =>
  OPENS_DIALOG.has(event.type) || ((event.type === "plan.discard" || event.type === "plan.supersede") && event.by === "model")

const eventsIn = (state: SnapshotFrom<typeof planMachine>): PlanEvent[] => [
  ...eventCases.filter((event) => state.context.dialog < MAX_DIALOGS || !opensDialog(event)),
  ...dialogAnswers(state),
  ...documentEdits(state),
]

describe("plan machine", () => {
  it("reaches every state of the machine", () => {
    // Only the events the world produces (xstate/graph would add a bare one for each event type a state handles).
    const filterEvents = (state: SnapshotFrom<typeof planMachine>, event: PlanEvent) => eventsIn(state).some((e) => isDeepStrictEqual(e, event))
    const paths = createTestModel(planMachine, { input, events: eventsIn, filterEvents }).getShortestPaths({ limit: 5000, allowDuplicatePaths: true })
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
