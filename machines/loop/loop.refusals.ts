import { drivenElsewhereText } from "../driver.claim"
import { isFileChangingTool } from "../tool.kinds"
import type { SnapshotFrom } from "xstate"
import { adjustProblems, handoffProblems, isDeniedInLoop, MAX_LOOP_SECTIONS, passesNeeded, pathsOutsideWorktree, roleOfPhase } from "./loop.gates"
import { type LoopEvent, findingScopeOf, type loopMachine, loopPassOf, loopPhaseOf } from "./loop.machine"
import { CROSS_SECTION, openBugs } from "./loop.findings"
import { isSandboxReady } from "./loop.sandbox"
import { loopStatusOf } from "./loop.status"

type LoopSnapshot = SnapshotFrom<typeof loopMachine>

// When `snapshot.can(event)` says no, these texts say which gate refused and how to get past it.
// They describe the machine's decision; they never make it.

export function explainLoopRefusal(snapshot: LoopSnapshot, event: LoopEvent): string {
  const { context } = snapshot
  const loop = `loop ${context.loopName}`
  const status = loopStatusOf(snapshot.value)
  if (snapshot.status === "done")
    return snapshot.matches("completed")
      ? `${loop} is ${status}: a completed loop is history and accepts no further changes. Start a new one with loop_start.`
      : `${loop} is ${status}: a finished loop accepts no further changes. Restart it where it ended with loop_status {name: "${context.loopName}", restart: true}, or start a new one with loop_start.`
  const phase = loopPhaseOf(snapshot.value)
  const pass = loopPassOf(snapshot)
  switch (event.type) {
    case "loop.handoff":
    case "loop.adjust": {
      const tool = event.type === "loop.handoff" ? "loop_handoff" : "loop_adjust"
      if (context.session === null || pass?.hasTag("working") !== true)
        return `${loop} is opening its next ${phase} session: ${tool} is taken only from the phase's session, once it runs.`
      if (event.session !== context.session)
        return `loop handoff gate: only ${loop}'s current ${phase} session (${context.session}) may call ${tool}; this session is not it.`
      if (event.type === "loop.handoff" && (event.busy ?? []).length > 0)
        return `loop handoff gate: ${loop}'s pass still has sessions working: ${(event.busy ?? []).join(", ")} (its subagents, busy or retrying). Wait until they finish, then call ${tool} again.`
      if (event.type === "loop.handoff" && phase !== undefined) {
        const problems = handoffProblems(phase, event.handoff, openBugs(context.findings, findingScopeOf(context)))
        return `loop handoff gate: ${loop} is in its ${phase} phase (the ${roleOfPhase(phase)}'s turn): ${problems.join("; ")}.`
      }
      if (event.type === "loop.adjust") {
        if (phase !== "auditing") return `loop adjust gate: only the auditor of a section audit amends the pending sections; ${loop} is in its ${phase} phase.`
        if ((pass?.context.pending ?? null) !== null)
          return `loop adjust gate: the audit's handoff is recorded already; amend the sections before you hand off.`
        return `loop adjust gate: ${adjustProblems({ ...context, amendments: context.amendments.length }, event, event.rationale).join("; ")}.`
      }
      return `${loop} does not take this now (${phase}).`
    }
    case "loop.review.write":
    case "loop.review.delete": {
      const tool = event.type === "loop.review.write" ? "review_write" : "review_delete"
      const place = `${"finding" in event ? event.finding.file : event.file}:${"finding" in event ? event.finding.line : event.line}`
      if (phase !== "auditing" && phase !== "final_auditing")
        return `loop review gate: ${loop} is in its ${phase} phase; only its auditor records or deletes findings (a coder fixes them, and the next audit deletes what is fixed).`
      if (context.session === null || pass?.hasTag("working") !== true || event.session !== context.session)
        return `loop review gate: only ${loop}'s current ${phase} session calls ${tool}, once it runs; this session is not it.`
      if ((pass?.context.pending ?? null) !== null)
        return `loop review gate: the audit's handoff is recorded already; record or delete findings before you hand off.`
      return event.type === "loop.review.write"
        ? `loop review gate: a finding at ${place} of ${sectionName(event.finding.section)} is open already: delete it with review_delete first, or give another line.`
        : `loop review gate: ${loop} has no open finding at ${place} of ${sectionName(event.section)} (review_read lists the open ones).`
    }
    case "loop.cancel":
      return `${loop}: a loop's own pass does not cancel it. Record this pass with loop_handoff and end your turn; the user (or the session that started the loop) cancels it.`
    case "loop.fail":
      return `${loop} is ${status}: only a running loop can end.`
    case "loop.session.opened":
    case "loop.session.failed":
      return `${loop} is not opening a session (it is in its ${phase} phase).`
    case "loop.restart":
      if (!event.force)
        return `loop restart gate: ${loop} is running (its ${phase} phase, pass ${context.iteration} of at most ${context.maxIterations}). A restart stops that pass and starts the phase again with a new session and new budgets; to restart a running loop give force: true.`
      return `loop driver gate: ${drivenElsewhereText(`${loop}'s ${phase} pass`, event.driver) ?? `${loop}'s ${phase} pass is driven by another process`} Restart it from there, or once that process has ended.`
    case "loop.restored":
      return `loop driver gate: ${drivenElsewhereText(`${loop}'s ${phase} pass`, event.driver) ?? `${loop}'s ${phase} pass is driven by another process`}`
    case "tool.use": {
      if (isDeniedInLoop(event.tool))
        return (
          `loop session gate: "${event.tool}" is not used inside loop ${context.loopName}'s passes: plan authoring, loop management and questions to the user are for the session that runs the loop. ` +
          "A loop runs unattended: put what you would ask or propose in your handoff's notes (or a finding), and finish this pass."
        )
      const outside = pathsOutsideWorktree(event.paths, context.worktree.dir)
      if ((phase === "auditing" || phase === "final_auditing") && isFileChangingTool(event.tool))
        return (
          `loop audit write-ban: this session audits loop ${context.loopName} (${phase} phase) and changes no file, so "${event.tool}" is refused. ` +
          "Report what must change as findings in loop_handoff: a coder session makes the changes."
        )
      return (
        `loop worktree gate: loop ${context.loopName}'s passes work only in its worktree ${context.worktree.dir}, and "${event.tool}" names ${outside.join(", ")} outside it. ` +
        "Use a path under the worktree (for forge_shell, set cwd to it)."
      )
    }
    case "loop.session.error":
    case "loop.session.silent":
    case "loop.idle":
      return `${loop}: the idle of a session that is not its current one changes nothing.`
  }
}

/** attempt_completion inside a running loop: the loop advances only by recorded handoffs. */
export function loopCompletionRefusal(snapshot: LoopSnapshot): string {
  const phase = loopPhaseOf(snapshot.value)
  return (
    `attempt_completion is refused inside loop ${snapshot.context.loopName} (${phase} phase): a loop advances only by recorded handoffs. ` +
    "Record this phase's work with loop_handoff (the loop's current pass does), then end your turn; the loop decides what comes next."
  )
}

/** Why the birth gate refused a loop (the machine's first step ended in `refused`). */
export function explainLoopBirthRefusal(snapshot: LoopSnapshot): string {
  const { askedFrom, planPath, planStatus, sections, maxIterations, sandbox, restarts, loopName } = snapshot.context
  if (restarts.length > 0) {
    if (restarts.at(-1)?.from === "completed")
      return `loop restart gate: loop ${loopName} completed; a completed loop is history and cannot be restarted. Start a new loop with loop_start.`
    return loopSandboxRefusal(sandbox.problem ?? "it did not start")
  }
  if (askedFrom !== null) return `loop_start is refused inside loop ${askedFrom}: a running loop never starts another. Finish this phase with loop_handoff.`
  if (!isSandboxReady(sandbox)) return loopSandboxRefusal(sandbox.problem ?? "it did not start")
  if (planPath !== null && planStatus !== "approved")
    return `loop_start: the plan ${planPath} is ${planStatus ?? "unreadable"}; a loop executes only an approved plan. Approve it first (plan_approve), or give the plan inline.`
  if (sections.length === 0) return "loop_start: the plan has no section to execute (write its work under `## Phase N: Title` headings, or give it some text)."
  if (sections.length <= MAX_LOOP_SECTIONS && maxIterations < passesNeeded(sections.length))
    return `loop_start: ${sections.length} sections need at least ${passesNeeded(sections.length)} passes (a coder and an auditor each, then the final audit); maxIterations is ${maxIterations}. Give a larger maxIterations.`
  return `loop_start: the plan has ${sections.length} sections; a loop takes at most ${MAX_LOOP_SECTIONS}. Merge some phases first.`
}

/** The loop sandbox gate's refusal: why the sandbox cannot start, how to make it start, and how to turn it off. */
export function loopSandboxRefusal(problem: string): string {
  return (
    `loop sandbox gate: every shell of a loop's passes runs in a bubblewrap sandbox, and it cannot start here: ${problem}. ` +
    "Install bubblewrap (Debian and Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap), or turn the sandbox off with the " +
    'plugin option "loop.sandbox": "off" to run the passes\' shells unconfined. Nothing was started.'
  )
}

/** A finding's section as a refusal names it. */
function sectionName(section: number): string {
  return section === CROSS_SECTION ? "no one section (cross-section)" : `section ${section + 1}`
}
