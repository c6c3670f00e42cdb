import { type LoopOpenFinding, auditFindings, placeOf } from "../../machines/loop/loop.findings"
import { type LoopRole, MAX_LOOP_NUDGES, roleOfPhase } from "../../machines/loop/loop.gates"
import { type LoopBrief, type LoopContext, type LoopOutcome, type LoopPassView, findingScopeOf } from "../../machines/loop/loop.machine"
import type { LoopPhase } from "../../machines/loop/loop.gates"
import { sep } from "node:path"
import { countOf } from "../text/count.text"
import { LOOP_WORKTREES_DIR } from "./loop.start.defaults"
import type { LoopBranchFacts } from "./loop.ports"

// What a loop tells its sessions: each pass's brief (the section, the worktree, what the last pass handed off) and
// the reminder for a turn that ended without a handoff; and what it tells the user when it ends. For the model only:
// the sessions get them as synthetic prompts.

/** The first line of every brief, so a reader (and a test) can tell a loop's prompt from anything else. */
export const LOOP_BRIEF_TAG = "[forge:loop]"

export function loopBriefText(context: LoopPassView, phase: LoopPhase, brief: LoopBrief): string {
  if (brief === "nudge") return nudgeText(context, phase)
  const { sections, sectionIndex, worktree } = context
  const role = roleOfPhase(phase)
  const section = sections[sectionIndex]
  const final = phase === "final_auditing" || phase === "final_audit_fix" || phase === "post_action"
  const what =
    phase === "post_action"
      ? "post-action: the plan is done and audited"
      : final
        ? "final audit of the whole plan"
        : `section ${sectionIndex + 1} of ${sections.length}: ${section?.title ?? ""}`
  const lines = [
    `${LOOP_BRIEF_TAG} Loop ${context.loopName} — ${what} (pass ${context.iteration} of at most ${context.maxIterations}, ${role}).`,
    "",
    `You are the ${role} of a Forge loop. The loop's git worktree is ${worktree.dir} (branch ${worktree.branch}): work only there, with absolute paths under it; run commands with forge_shell and its cwd set to it (a path outside it is refused).`,
    "",
    ...(final ? wholePlan(context) : [`## Section ${sectionIndex + 1}: ${section?.title ?? ""}`, "", section?.content ?? ""]),
    "",
    ...lastHandoff(context, role),
    ...(role === "coder" ? coderDuty(final) : role === "auditor" ? auditorDuty(phase) : postActionDuty()),
  ]
  return lines.join("\n")
}

function wholePlan(context: LoopContext): string[] {
  return ["## The plan", "", ...context.sections.flatMap((s, i) => [`### Section ${i + 1}: ${s.title}`, "", s.content, ""])]
}

function lastHandoff(context: LoopContext, role: LoopRole): string[] {
  const { last } = context
  if (last === null) return []
  if (last.role === "auditor") {
    // Only a dirty audit sends work back: a clean one's warnings stay with its section.
    const found = auditFindings(context.findings, last.findings, findingScopeOf(context))
    if (role !== "coder" || !found.some((f) => f.severity === "bug")) return []
    return [
      "## Findings of the last audit (fix every bug; weigh each warning)",
      "",
      ...found.map((f) => findingLine(f, context.recurring[placeOf(f)] ?? 0)),
      "",
    ]
  }
  if (role !== "auditor" || last.role !== "coder") return []
  return [
    "## The coder's handoff",
    "",
    ...last.changes.map((c) => `- change: ${c.summary} (why: ${c.reason})`),
    ...last.deviations.map((d) => `- deviation from "${d.planItem}": ${d.actual} (why: ${d.reason})`),
    ...last.verification.map(
      (v) => `- verified \`${v.command}\` in ${v.cwd === "" ? "." : v.cwd}: ${v.outcome}${v.changedAfter ? " (code changed after)" : ""}`,
    ),
    ...(last.notes === null ? [] : [`- notes: ${last.notes}`]),
    "",
  ]
}

function findingLine(f: LoopOpenFinding, recurring: number): string {
  const place = f.file === "" ? "" : ` ${f.file}${f.line === 0 ? "" : `:${f.line}`}`
  const again = recurring >= 2 ? ` (RECURRING: found in ${recurring} audits in a row; fix the cause, not the symptom)` : ""
  const scenario = f.scenario === null ? "" : ` Scenario: ${f.scenario}`
  return `- ${f.severity}${place}: ${f.description}${again}${scenario}`
}

function coderDuty(final: boolean): string[] {
  return [
    `When ${final ? "the final audit's findings are fixed" : "the section is implemented and verified"}, leave your work in the worktree (do not commit: Forge commits it once its audit is clean), then call loop_handoff with`,
    "changes [{summary, reason}], deviations [{planItem, actual, reason}] and verification [{command, cwd (worktree-relative), outcome pass|fail|not-run, changedAfter}],",
    "and end your turn. The loop takes it from there: never call attempt_completion in a loop.",
  ]
}

function auditorDuty(phase: LoopPhase): string[] {
  const section = phase === "auditing"
  return [
    `You change no file (file-changing tools are refused in an audit). Check the work against the plan: read the code, and run the checks with forge_shell, cwd in the worktree.`,
    "Record each finding with review_write {file, line, severity bug|warning, description, scenario} (a bug sends the work back to a coder and stays open until deleted); review_read lists the open ones in your scope, with the earlier audits' (attempts: true). Delete each one that is fixed with review_delete: a coder never does.",
    "Then call loop_handoff (findings may also be named there, for this audit only)",
    section
      ? "and, when no bug remains, a summary {done, deviations, followUps}. Before handing off you may amend the plan with loop_adjust: currentSection edits this section in place (with a bug finding if the change needs code), sections replaces the ones after it (section_read {pending_suffix: true} shows them); with a rationale, never to weaken the plan."
      : "and, when no bug remains, optionally a summary {done, deviations, followUps}.",
    "Then end your turn: never call attempt_completion in a loop.",
  ]
}

function postActionDuty(): string[] {
  return [
    "Every section passed its audit and the final audit is clean; nobody audits this pass. Wrap the loop up in the worktree: make sure it builds and its checks pass (with forge_shell, cwd in the worktree), and leave your work there uncommitted (Forge commits it).",
    "Then end the loop with loop_complete {outcome completed|completed_with_issues|failed, steps [what you did], followUps, notes} and end your turn: loop_handoff is refused here, and attempt_completion in any loop.",
  ]
}

function nudgeText(context: LoopPassView, phase: LoopPhase): string {
  return [
    `${LOOP_BRIEF_TAG} Loop ${context.loopName}: your turn ended without a handoff (reminder ${context.nudges} of ${MAX_LOOP_NUDGES}; after that the loop stalls).`,
    phase === "post_action"
      ? `Finish the post-action in ${context.worktree.dir}, call loop_complete {outcome, steps}, and end your turn.`
      : `Finish the ${phase} work in ${context.worktree.dir}, call loop_handoff with the ${roleOfPhase(phase)}'s record, and end your turn.`,
  ].join("\n")
}

/** What the post-action pass said it did, when the loop ended with it. */
function postActionLines(last: LoopContext["last"]): string[] {
  if (last?.role !== "post_action") return []
  return [
    `Post-action (${last.outcome}): ${last.steps.join("; ")}.`,
    ...(last.followUps.length === 0 ? [] : [`Follow-ups: ${last.followUps.join("; ")}.`]),
    ...(last.notes === null ? [] : [`Notes: ${last.notes}`]),
  ]
}

/** What git said of the loop's branch and worktree when it ended, or why it could not say. */
export type LoopBranchReport = LoopBranchFacts | { unreadable: string }

/**
 * What the user reads in the session that started the loop when it ends. It claims of the work only what git said
 * just before: the commits on the branch (count and newest), or that nothing was committed, and what is left
 * uncommitted in the worktree.
 */
export function loopEndText(context: LoopContext, outcome: LoopOutcome, branch: LoopBranchReport): string {
  const done = context.sections.filter((s) => s.status === "done").length
  const issues = context.reason === "completed_with_issues" ? ", with issues the post-action names" : ""
  const why = outcome === "completed" ? `every section passed its audit and the final audit is clean${issues}` : (context.reason ?? "no reason recorded")
  return [
    `${LOOP_BRIEF_TAG} Loop ${context.loopName} ${outcome}: ${why}.`,
    `${done} of ${context.sections.length} sections done in ${countOf(context.iteration, "pass", "passes")}.`,
    ...postActionLines(context.last),
    ...branchLines(context.worktree, branch),
  ].join("\n")
}

/** A loop's worktree as the ending names it: from the workspace root (where the user runs git), when it is there. */
function shownWorktree(dir: string): string {
  const at = dir.lastIndexOf(`${sep}${LOOP_WORKTREES_DIR}${sep}`)
  return at < 0 ? dir : dir.slice(at + 1)
}

function branchLines({ branch, dir: absolute, base }: LoopContext["worktree"], report: LoopBranchReport): string[] {
  const dir = shownWorktree(absolute)
  if ("unreadable" in report) return [`Forge could not read the branch ${branch} (worktree ${dir}): ${report.unreadable}.`]
  const from = base.slice(0, 12)
  const commits =
    report.last === null
      ? `Nothing was committed: the branch ${branch} is still at ${from}.`
      : `The branch ${branch} has ${countOf(report.commits, "commit")} since ${from}; the last is ${report.last.hash} "${report.last.subject}".`
  const worktree =
    report.uncommitted === null
      ? `Its worktree ${dir} is gone.`
      : report.uncommitted === 0
        ? `Its worktree ${dir} has no uncommitted change.`
        : `Its worktree ${dir} has ${countOf(report.uncommitted, "path")} changed and not committed.`
  // How to take the work, only where there is some: commands for the user to run, no claim about them.
  const merge =
    report.last === null ? [] : [`To take it into your checkout: git merge ${branch}`, `Once merged: git worktree remove ${dir}; git branch -d ${branch}`]
  return [commits, worktree, ...merge]
}
