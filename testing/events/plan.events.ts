import type { SnapshotFrom } from "xstate"
import { type PlanEvent, type PlanInput, planMachine } from "../../machines/plan/plan.machine"
import type { ModelWorldByState } from "../model.world"

// The plan's model world: one plan with one task and one criterion, and what the user, the model and the plan
// document can send it in each state. `tool.use` is only ever asked, never sent: a host's gate asks `can()`.

type Snapshot = SnapshotFrom<typeof planMachine>

/** What a harness names its own way (Forge's model test passes its SUT's). */
export interface PlanWorldOptions {
  /** The session that writes the plan and binds it. */
  session?: string
}

/** Dialogs one path may open: two tell apart two dialogs in one state; more only repeat them (and never end the graph). */
const MAX_DIALOGS = 2
const OPENS_DIALOG = new Set(["plan.approve", "plan.close"])
const opensDialog = (event: PlanEvent): boolean =>
  OPENS_DIALOG.has(event.type) || ((event.type === "plan.discard" || event.type === "plan.supersede") && event.by === "model")

/**
 * A document edit of the status line, as the world can make it: in a live plan, the statuses the machine takes (one
 * that passes a user-held gate is held; its own status drops what was held). A status that only tightens is followed
 * by the host outside the machine. A finished plan gets one probe.
 */
function documentEdits(state: Snapshot): PlanEvent[] {
  const { tasks, criteria } = state.context
  const edit = (status: "draft" | "approved" | "done"): PlanEvent => ({ type: "plan.document.changed", status, tasks, criteria })
  if (state.status !== "active") return [edit("done")]
  return state.matches("draft") ? [edit("draft"), edit("approved"), edit("done")] : [edit("approved"), edit("done")]
}

/**
 * The user's answers: in a dialog state, to the dialog open now and a stale one (to the dialog before it, which
 * another command or process closed); elsewhere an answer to the last dialog, which is closed.
 */
function dialogAnswers(state: Snapshot): PlanEvent[] {
  const { dialog } = state.context
  const answers: PlanEvent[] = [
    { type: "dialog.allow", dialog },
    { type: "dialog.reject", dialog },
  ]
  if (!state.hasTag("awaiting-user")) return answers
  return [...answers, { type: "dialog.allow", dialog: dialog - 1 }, { type: "dialog.reject", dialog: dialog - 1 }]
}

export function planModel({ session = "ses_model" }: PlanWorldOptions = {}): ModelWorldByState<typeof planMachine> {
  const input: PlanInput = {
    planPath: ".opencode/plan/2026-11-30-model-plan.md",
    sessionId: session,
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
    { type: "plan.bind", sessionId: session },
    { type: "tool.use", tool: "bash" },
    { type: "tool.use", tool: "read" },
  ]
  return {
    machine: planMachine,
    configs: [{ name: "one task, one criterion", input }],
    events: (state) => [
      ...eventCases.filter((event) => state.context.dialog < MAX_DIALOGS || !opensDialog(event)),
      ...dialogAnswers(state),
      ...documentEdits(state),
    ],
    limit: 5000,
  }
}
