import type { SnapshotFrom } from "xstate"
import { attestationCoverage, hasBudgetLeft, isDueAt, isShownRunPassed, resumedLimits } from "./goal.gates"
import type { GoalEvent, goalMachine } from "./goal.machine"
import { goalStatusOf } from "./goal.status"
import { stateToString } from "../state.text"
import { drivenElsewhereText } from "../driver.claim"
import { staleAnswerText } from "../dialog.gates"
import { findingPlace, isAuditorTool, openAuditBugs } from "./goal.audit"

type GoalSnapshot = SnapshotFrom<typeof goalMachine>

// When `snapshot.can(event)` says no, these texts say which gate refused and how to get past it.
// They describe the machine's decision; they never make it.

export function explainGoalRefusal(snapshot: GoalSnapshot, event: GoalEvent): string {
  const { context } = snapshot
  const goal = context.goalPath
  const status = goalStatusOf(snapshot.value)
  const state = stateToString(snapshot.value)
  if (snapshot.status === "done") return `goal ${goal} is ${status}: a finished goal accepts no further changes. Write a new goal with goal_write.`
  if (event.type === "goal.restored") {
    const elsewhere = drivenElsewhereText(`goal ${goal}`, event.driver)
    if (elsewhere !== null) return elsewhere
    return `goal ${goal} is ${state}: there is nothing to take over (only an open dialog, or a working goal's loop, is).`
  }
  // In a dialog state an answer is refused only when it is for a dialog that has since closed.
  if (snapshot.hasTag("awaiting-user") && (event.type === "dialog.allow" || event.type === "dialog.reject"))
    return staleAnswerText({ subject: `goal ${goal}`, status, answered: event.dialog, open: context.dialog })
  if (snapshot.hasTag("awaiting-user")) return `goal ${goal} is waiting on the user's answer to an open dialog (${state}): ask again once it is answered.`
  switch (event.type) {
    case "goal.arm":
      if (status !== "queued") return `goal ${goal} is ${status}: only a queued goal is armed (a paused one is resumed: goal_resume).`
      if (context.contract.checks.length === 0)
        return `arm gate: goal ${goal} has no check the host can run. Add at least one --check "command" or --contains "file::text" (goal_write with revise=true), then arm it.`
      return draftConflict(goal, "armed")
    case "goal.resume": {
      if (status !== "paused") return `goal ${goal} is ${status}: only a paused goal is resumed.`
      if (event.draftPlan) return draftConflict(goal, "resumed")
      if (context.contract.checks.length === 0) return `resume gate: goal ${goal} has no check the host can run. Add one (goal_write with revise=true) first.`
      const limits = resumedLimits({ ...event, limits: context.limits })
      if (!hasBudgetLeft({ now: event.now, armedAt: context.armedAt, turnsUsed: context.turnsUsed, spend: context.spend, limits })) {
        const money = limits.maxCost === null ? "" : `, $${context.spend.cost.toFixed(2)} of $${limits.maxCost.toFixed(2)}`
        const tokens = limits.maxTokens === null ? "" : `, ${context.spend.tokens} of ${limits.maxTokens} tokens`
        return (
          `resume gate: goal ${goal} has spent its budget (${context.turnsUsed} of ${limits.maxTurns} turns, ${limits.maxMinutes} minutes since it was armed${money}${tokens}). ` +
          `Resume it with more: addTurns, addMinutes (at most 200 turns and 480 minutes in all), addCost or addTokens.`
        )
      }
      return `goal ${goal} cannot be resumed now (${state}).`
    }
    case "goal.complete": {
      if (status !== "active")
        return `completion gate: goal ${goal} is ${status}; only an active goal completes.${status === "paused" ? " Resume it first (goal_resume)." : ""}`
      const reasons: string[] = []
      if (event.run.revision !== context.revision)
        reasons.push(`the checks ran for revision ${event.run.revision}, the contract is at revision ${context.revision}`)
      const passed = new Set(event.run.results.filter((r) => r.pass).map((r) => r.item))
      const failing = Array.from({ length: context.contract.checks.length }, (_, i) => i + 1).filter((item) => !passed.has(item))
      if (failing.length > 0) reasons.push(`check${failing.length > 1 ? "s" : ""} ${failing.join(", ")} did not pass in the host's run`)
      const coverage = attestationCoverage({ criteria: context.contract.success, attestations: event.attestations })
      if (coverage.missing.length > 0) reasons.push(`criteria without an attestation with evidence: ${coverage.missing.map((c) => `"${c}"`).join(", ")}`)
      if (coverage.duplicated.length > 0) reasons.push(`criteria attested more than once: ${coverage.duplicated.map((c) => `"${c}"`).join(", ")}`)
      if (coverage.unknown.length > 0) reasons.push(`attestations naming no criterion of the goal: ${coverage.unknown.map((c) => `"${c}"`).join(", ")}`)
      const checkCount = context.contract.checks.length
      if (reasons.length === 0 && !isShownRunPassed({ revision: context.revision, checkCount, shown: event.shown }))
        return (
          `completion gate: the user has not seen a passing run of every check of revision ${context.revision}: the completion dialog shows the run its call's line shows, ` +
          `and this call's line ${event.shown?.run === null ? "had no run to show" : "showed a run that is no pass of every check of this revision"}. ` +
          `This call's own run passed: call ${event.shown?.tool ?? "goal_complete"} again with the same arguments; its line shows this run, the host runs every check once more, and the user's dialog opens if each passes again.`
        )
      return `completion gate: goal ${goal} is not complete — ${reasons.join("; ") || "it cannot complete now"}.`
    }
    case "goal.audit.opened":
      if (!snapshot.hasTag("auditing")) return `goal ${goal} is ${state}: no audit is running, so no auditor session is opened for it.`
      return `goal ${goal}'s audit already has its auditor session (${context.audit?.session}): one session per audit.`
    case "goal.audit.tool":
    case "goal.review.write":
    case "goal.review.delete":
    case "goal.audit.done":
      return auditorRefusal(snapshot, event)
    case "goal.audit.failed":
      return `goal ${goal} is ${state}: no audit is running.`
    case "goal.pause":
      return `goal ${goal} is ${status}: only an active goal is paused.`
    case "goal.discard":
      return `goal ${goal} is ${status}: it can no longer be discarded.`
    case "goal.revise":
      return `goal ${goal} is ${status} (${state}): its contract cannot be revised now.`
    case "dialog.allow":
    case "dialog.reject":
      return `goal ${goal} is not waiting on a user dialog (it is ${state}).`
    case "loop.due":
      if (!isDueAt({ now: event.now, dueAt: context.dueAt })) return `goal ${goal}: the loop is not due (${state}).`
      {
        const elsewhere = drivenElsewhereText(`goal ${goal}`, event.driver)
        if (elsewhere !== null) return `${elsewhere} It decides this idle.`
      }
      return `goal ${goal}: the loop has nothing to decide (${state}).`
    case "job.wake":
      return `goal ${goal} is ${state}: no brief follows there to carry a job's wake; the job sends it itself.`
    case "goal.document.changed":
    case "loop.failed":
    case "session.idle":
    case "session.busy":
    case "goal.activity":
    case "goal.checked":
      return `goal ${goal} is ${state}: "${event.type}" changes nothing there.`
  }
}

/** Why a call of an auditor session (a tool, a finding, its turn's end) was refused: whose audit it is, and what it may do. */
function auditorRefusal(
  snapshot: GoalSnapshot,
  event: Extract<GoalEvent, { type: "goal.audit.tool" | "goal.review.write" | "goal.review.delete" | "goal.audit.done" }>,
): string {
  const { context } = snapshot
  const goal = context.goalPath
  const audit = context.audit
  if (audit === null || !audit.sessions.includes(event.session))
    return `goal audit gate: only the auditor session of a goal's running audit records or deletes its findings, and ${goal} has no audit for this session.`
  if (!snapshot.hasTag("auditing") || audit.session !== event.session)
    return `goal audit gate: the audit of goal ${goal} this session ran is over, so it can do nothing more (${event.type === "goal.audit.tool" ? `"${event.tool}" refused` : event.type}). End your turn.`
  if (event.type === "goal.audit.tool")
    return isAuditorTool(event.tool)
      ? `goal ${goal}: "${event.tool}" cannot be called now.`
      : `goal audit write-ban: this session audits goal ${goal} and changes nothing, so "${event.tool}" is refused. Read, search and run checks (your shell is read-only); record each problem with review_write, and end your turn with a short summary.`
  if (event.type === "goal.review.write") {
    const place = findingPlace(event.finding)
    return `goal audit gate: ${place} already has an open finding; one finding per place. Read it with review_read, and delete it (review_delete) first if it is fixed or wrong.`
  }
  if (event.type === "goal.review.delete") return `goal audit gate: goal ${goal} has no open finding at ${findingPlace(event)} (review_read lists them).`
  return `goal ${goal}: the audit still has ${openAuditBugs(audit).length} bug(s) open.`
}

function draftConflict(goal: string, verb: string): string {
  return (
    `draft-conflict gate: this session has a draft plan, and its write ban would wall the goal's loop off, so goal ${goal} cannot be ${verb} now. ` +
    `Approve the plan (plan_approve) or discard it (/plan discard) first.`
  )
}

/**
 * What a goal answers while its document says more than the goal is: the status the document claims waits for the
 * user's dialog. Empty when nothing is pending.
 */
export function pendingGoalDocumentNote(snapshot: GoalSnapshot): string {
  const pending = snapshot.context.pendingDocument ?? null
  if (pending === null || snapshot.status === "done") return ""
  const status = goalStatusOf(snapshot.value)
  const dialog =
    pending === "completed"
      ? "the completion dialog (goal_complete, after the host re-runs every check)"
      : status === "queued"
        ? "the arm dialog (goal_resume arms it)"
        : "the resume dialog (goal_resume)"
  return (
    `The document of goal ${snapshot.context.goalPath} says status: ${pending}, but the goal stays ${status}: a document edit does not pass a gate the user holds. ` +
    `Pending until the user confirms it with /goal confirm, which goes through ${dialog}.`
  )
}

/** Why the birth gate refused a new goal (the machine's first step ended in `refused`): the session's live goal. */
export function explainGoalBirthRefusal(snapshot: GoalSnapshot): string {
  const live = snapshot.context.birth?.liveGoal ?? null
  if (live === null) return `goal ${snapshot.context.goalPath} was not written: its birth gate refused it.`
  return (
    `this session already has a live goal: ${live.path} (${live.status}). ` +
    "Revise it with goal_write revise=true, finish it, or discard it (/goal discard); goal_write arm=false queues a new goal instead."
  )
}
