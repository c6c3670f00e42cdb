import { type PlanEvent, type PlanInput, planMachine } from "forgecharts/machines"
import { describeModel } from "forgecharts/testing"
import type { SnapshotFrom } from "xstate"
import { SESSION, startPlanSut } from "./plan.sut"

// The goal harness's in-memory adapters (examples/goal-harness: memory.repository.ts, memory.files.ts) proven with
// forgecharts/testing: paths generated from the plan machine drive the plan service on those adapters, and every step
// is checked against the machine (plan.sut.ts). The run prints the machine's transition coverage and fails below
// 100 %. It is the plan machine, not the goal's: the goal's event space (checks, audits, loops, wakes) needs a SUT
// many times this size, while the plan exercises the same two ports (every step committed to the repository, the
// document written and followed) with a dozen events. Run it from the built package: `npm run build`, then
// vitest with this folder as its root, as test/integration/build/bundle.test.ts does.

const input: PlanInput = {
  planPath: ".opencode/plan/model-plan.md",
  sessionId: SESSION,
  tasks: [{ number: 1, ticked: false }],
  criteria: ["c1"],
  document: "",
}

/** What the model and the user may do to a plan: each guard's yes and its no. */
const calls: PlanEvent[] = [
  { type: "plan.revise", tasks: [], criteria: [], document: "" },
  { type: "plan.approve" },
  { type: "plan.tick", task: 1 },
  { type: "plan.close", checks: [{ criterion: "c1", pass: true, evidence: "ran it" }] },
  { type: "plan.discard", by: "user", reason: "wrong approach" },
  { type: "plan.discard", by: "model", reason: "the model wants out" },
  { type: "plan.supersede", by: "user", successor: ".opencode/crew/next.md" },
  { type: "plan.supersede", by: "model", successor: ".opencode/crew/next.md" },
  { type: "plan.supersede", by: "user", successor: " " },
  { type: "plan.bind", sessionId: SESSION },
  { type: "tool.use", tool: "bash" },
  { type: "tool.use", tool: "read" },
]

/** The user's answers: to the last dialog and, while one is open, to the one before it (closed meanwhile). */
function answers(state: SnapshotFrom<typeof planMachine>): PlanEvent[] {
  const { dialog } = state.context
  return (state.hasTag("awaiting-user") ? [dialog, dialog - 1] : [dialog]).flatMap((n) => [
    { type: "dialog.allow", dialog: n } as const,
    { type: "dialog.reject", dialog: n } as const,
  ])
}

/**
 * An edit of the document's status line, as the world can make it to a live plan: one the plan follows, and one that
 * passes a gate the user holds, which the plan holds for the user's dialog. An ended plan gets one probe.
 */
function edits(state: SnapshotFrom<typeof planMachine>): PlanEvent[] {
  const { tasks, criteria } = state.context
  const edit = (status: "draft" | "approved" | "done"): PlanEvent => ({ type: "plan.document.changed", status, tasks, criteria })
  if (state.status !== "active") return [edit("done")]
  return state.matches("draft") ? [edit("draft"), edit("approved"), edit("done")] : [edit("approved"), edit("done")]
}

/** Two dialogs on one path tell apart two dialogs in one state; more would only repeat them. */
const opensDialog = (event: PlanEvent): boolean =>
  event.type === "plan.approve" || event.type === "plan.close" || ((event.type === "plan.discard" || event.type === "plan.supersede") && event.by === "model")

describeModel({
  machine: planMachine,
  configs: [{ name: "one task, one criterion", input }],
  events: (state) => [...calls.filter((event) => state.context.dialog < 2 || !opensDialog(event)), ...answers(state), ...edits(state)],
  start: startPlanSut,
  limit: 5000,
})
