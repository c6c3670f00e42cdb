import type { SnapshotFrom } from "xstate"
import { staleAnswerText } from "../dialog.gates"
import { checkCoverage, openTasks } from "./plan.gates"
import type { PlanEvent, planMachine } from "./plan.machine"
import { planStatusOf } from "./plan.status"
import { stateToString } from "../state.text"

type PlanSnapshot = SnapshotFrom<typeof planMachine>

// When `snapshot.can(event)` says no, these texts say which gate refused and how to get past it.
// They describe the machine's decision; they never make it.

export function explainPlanRefusal(snapshot: PlanSnapshot, event: PlanEvent): string {
  const { context } = snapshot
  const status = planStatusOf(snapshot.value)
  const plan = context.planPath
  const state = stateToString(snapshot.value)
  if (snapshot.status === "done") return `plan ${plan} is ${status}: a finished plan accepts no further changes. Start a new plan with plan_write.`
  switch (event.type) {
    case "tool.use":
      return (
        `draft write-ban: plan ${plan} is a draft, so "${event.tool}" is refused for every agent of this session. ` +
        pendingDocumentNote(snapshot) +
        `Two ways out, and both need the user: the user approves the plan (plan_approve opens the approval dialog), ` +
        `or the user discards it (/plan discard; plan_discard opens a discard dialog the user must allow). Reading and searching stay open.`
      )
    case "plan.revise":
      if (status === "draft") return `plan ${plan} is waiting on the user's answer to an open dialog (${state}): it can be rewritten once that is answered.`
      return `plan ${plan} is ${status}: only a draft can be rewritten. Tick its tasks and close it, or discard it (plan_discard, optionally with supersede) and write a new plan.`
    case "plan.approve":
      if (status !== "draft") return `plan ${plan} is ${status}: only a draft can be approved.`
      if (state === "draft.confirming") return `plan ${plan} is already waiting for the user's approval.`
      if (state === "draft.discarding") return dialogOpen(plan, state)
      return `approval gate: plan ${plan} needs at least one task under "## Tasks" and one criterion under "## Acceptance Criteria" before it can be approved. Add them with plan_edit.`
    case "plan.tick": {
      if (status !== "approved")
        return `plan ${plan} is ${status}: tasks are ticked only on an approved plan.${status === "draft" ? " Ask the user to approve it first (plan_approve)." : ""}`
      if (state === "approved.confirming") return `plan ${plan} is waiting for the user to confirm its close.`
      const known = context.tasks.some((t) => t.number === event.task)
      return known
        ? `task ${event.task} of plan ${plan} is already ticked. Open tasks: ${openTasks(context.tasks).join(", ") || "none"}.`
        : `plan ${plan} has no task ${event.task}. Its tasks are 1 to ${context.tasks.length}.`
    }
    case "plan.close": {
      if (status !== "approved") return `plan ${plan} is ${status}: only an approved plan can be closed.`
      if (state === "approved.confirming") return `plan ${plan} is already waiting for the user to confirm its close.`
      const reasons: string[] = []
      const open = openTasks(context.tasks)
      if (open.length > 0) reasons.push(`tasks not ticked: ${open.join(", ")} (tick each with plan_tick)`)
      const coverage = checkCoverage(context.criteria, event.checks)
      if (coverage.missing.length > 0) reasons.push(`criteria without one passing check with evidence: ${coverage.missing.map((c) => `"${c}"`).join(", ")}`)
      if (coverage.duplicated.length > 0) reasons.push(`criteria checked more than once: ${coverage.duplicated.map((c) => `"${c}"`).join(", ")}`)
      if (coverage.unknown.length > 0) reasons.push(`checks naming no criterion of the plan: ${coverage.unknown.map((c) => `"${c}"`).join(", ")}`)
      return `close gate: plan ${plan} cannot close yet — ${reasons.join("; ")}.`
    }
    case "plan.supersede":
      if (status !== "draft" && status !== "approved") return `plan ${plan} is ${status}: it can no longer be superseded.`
      if (event.successor.trim() === "") return `supersede needs the path of the successor document (e.g. a crew or goal file).`
      return dialogOpen(plan, state)
    case "plan.discard":
      if (status !== "draft" && status !== "approved") return `plan ${plan} is ${status}: it can no longer be discarded.`
      return dialogOpen(plan, state)
    case "dialog.allow":
    case "dialog.reject":
      // In a dialog state the only answer refused is one to a dialog that closed while it was open.
      if (snapshot.hasTag("awaiting-user")) return staleAnswerText({ subject: `plan ${plan}`, status, answered: event.dialog, open: context.dialog })
      return `plan ${plan} is not waiting on a user dialog (it is ${state}).`
    case "plan.bind":
      return `plan ${plan} is ${status}: only a live plan can be bound to a session.`
    case "plan.document.changed":
      // A live plan takes every document change (held or followed); only a finished one refuses, answered above.
      return `plan ${plan} is ${status}: its document (status: ${event.status}) cannot be followed now.`
  }
}

/** A draft's discard by the model needs its own dialog, and only one dialog is open at a time. */
function dialogOpen(plan: string, state: string): string {
  return `plan ${plan} is waiting on the user's answer to an open dialog (${state}): a discard by the model can be asked only once that is answered. The user can discard it at once with /plan discard.`
}

/**
 * What a plan answers while its document says more than the plan is: the status the document claims waits for the
 * user's dialog. Empty when nothing is pending. Read by refusals and by every plan answer.
 */
export function pendingDocumentNote(snapshot: PlanSnapshot): string {
  const pending = snapshot.context.pendingDocument ?? null
  if (pending === null || snapshot.status === "done") return ""
  const status = planStatusOf(snapshot.value)
  const dialog = pending === "done" && status === "approved" ? "the close dialog (plan_close)" : "the approval dialog (plan_approve)"
  return (
    `The document of plan ${snapshot.context.planPath} says status: ${pending}, but the plan stays ${status}: a document edit does not pass a gate the user holds. ` +
    `Pending until the user confirms it with /plan confirm, which goes through ${dialog}. `
  )
}
