// Pure predicates behind the loop machine's guards: the records a phase's session hands off, and the auditor's
// amendment of the pending sections. Plain functions so they read (and port) without XState.

/** At most this many sections: a plan decomposed into more keeps the first ones (the loop start says so). */
export const MAX_LOOP_SECTIONS = 24
/** Turns a phase session may end without a handoff before the loop stalls: each one is answered with a reminder. */
export const MAX_LOOP_NUDGES = 2
/** Errors in a row a pass's session may have (no handoff recorded between them) before the loop ends as errored. */
export const MAX_LOOP_ERRORS = 3
/** Amendments a loop takes in all: each one is kept in its record. */
export const MAX_LOOP_AMENDMENTS = 10

/** The fewest passes a loop of `sections` still to do needs: a coder and an auditor per section, the final audit, the post-action. */
export function passesNeeded(sections: number): number {
  return 2 * sections + 2
}

/**
 * Tools a loop's sessions never use: plan authoring (the loop runs its plan; the session's plan is the user's), loop
 * management (a pass neither starts, lists nor cancels loops), and questions to the user (a loop runs unattended:
 * what it would ask goes in its handoff's notes or a finding).
 */
const LOOP_SESSION_DENIED_TOOLS: ReadonlySet<string> = new Set([
  "plan_write",
  "plan_edit",
  "plan_approve",
  "plan_tick",
  "plan_close",
  "plan_discard",
  "loop_start",
  "loop_status",
  "loop_cancel",
  "question",
])

/** Whether a loop's session is denied a tool whatever its phase. */
export function isDeniedInLoop(tool: string): boolean {
  return LOOP_SESSION_DENIED_TOOLS.has(tool)
}

export type LoopPhase = "coding" | "auditing" | "final_auditing" | "final_audit_fix" | "post_action"
export type LoopRole = "coder" | "auditor" | "post_action"

export interface LoopSectionPlan {
  title: string
  /** The executable requirement: what the section's coder implements and its auditor checks. */
  content: string
}

export interface LoopSection extends LoopSectionPlan {
  status: "pending" | "done"
}

export interface LoopChange {
  summary: string
  reason: string
}

export interface LoopDeviation {
  planItem: string
  actual: string
  reason: string
}

export interface LoopVerification {
  command: string
  /** Worktree-relative. */
  cwd: string
  outcome: "pass" | "fail" | "not-run"
  /** Whether code changed after the check ran. */
  changedAfter: boolean
}

export interface LoopFinding {
  /** A bug blocks the audit; a warning is carried to the coder and does not. */
  severity: "bug" | "warning"
  /** Worktree-relative, when the finding is about one file. */
  file: string | null
  line: number | null
  description: string
}

export interface LoopAuditSummary {
  done: string[]
  deviations: string[]
  followUps: string[]
}

export interface CoderHandoff {
  role: "coder"
  changes: LoopChange[]
  deviations: LoopDeviation[]
  verification: LoopVerification[]
  notes: string | null
}

export interface AuditorHandoff {
  role: "auditor"
  findings: LoopFinding[]
  summary: LoopAuditSummary | null
  notes: string | null
}

/** How the post-action pass ends the loop (loop_complete): its only exit. */
export interface PostActionHandoff {
  role: "post_action"
  /** completed and completed_with_issues complete the loop; failed ends it as errored. */
  outcome: "completed" | "completed_with_issues" | "failed"
  /** What the pass did. */
  steps: string[]
  followUps: string[]
  notes: string | null
}

export type LoopHandoff = CoderHandoff | AuditorHandoff | PostActionHandoff

export function roleOfPhase(phase: LoopPhase): LoopRole {
  if (phase === "post_action") return "post_action"
  return phase === "coding" || phase === "final_audit_fix" ? "coder" : "auditor"
}

/** Whether an auditor's findings block the audit: any bug does. */
export function hasBlockingFindings(findings: readonly LoopFinding[]): boolean {
  return findings.some((f) => f.severity === "bug")
}

/** Whether a handoff is a clean audit (an auditor's, with no bug among its findings). */
export function isCleanAudit(handoff: LoopHandoff | null): boolean {
  return handoff?.role === "auditor" && !hasBlockingFindings(handoff.findings)
}

/**
 * What is wrong with a handoff for a phase. Empty when the phase's session may record it. `openBugs`: the bug findings
 * recorded and still open in the audit's scope (review_write), which block the audit as the handoff's own do.
 */
export function handoffProblems(phase: LoopPhase, handoff: LoopHandoff, openBugs = 0): string[] {
  const role = roleOfPhase(phase)
  if (role === "post_action" && handoff.role !== role)
    return ["the post-action pass ends only with loop_complete {outcome, steps, followUps?, notes?}: loop_handoff is refused here"]
  if (handoff.role === "post_action" && role !== "post_action")
    return [`loop_complete is the post-action pass's exit only; in the ${phase} phase record the ${role}'s work with loop_handoff`]
  if (handoff.role !== role) return [`the ${phase} phase takes the ${role}'s handoff, not the ${handoff.role}'s`]
  if (handoff.role === "post_action") return handoff.steps.length === 0 ? ["loop_complete names at least one step done"] : []
  if (handoff.role === "coder") {
    return [
      ...(handoff.changes.length === 0 ? ["a coder handoff names at least one change (summary and reason)"] : []),
      ...(handoff.verification.length === 0 ? ["a coder handoff names at least one verification (command, cwd, outcome)"] : []),
    ]
  }
  const blocking = hasBlockingFindings(handoff.findings) || openBugs > 0
  if (blocking && handoff.summary !== null)
    return [
      openBugs > 0
        ? `a summary is forbidden while bug findings remain (${openBugs} recorded and open: review_read lists them; review_delete the fixed ones)`
        : "a summary is forbidden while bug findings remain: the section is not done",
    ]
  if (!blocking && phase === "auditing" && handoff.summary === null) return ["a clean section audit needs its summary (done, deviations, followUps)"]
  if (handoff.summary !== null && handoff.summary.done.length === 0) return ["a summary names at least one thing done"]
  return []
}

/** Where a loop stands when its auditor amends the pending sections. */
/** What an amendment changes: the section under audit in place, the sections after it, or both. */
export interface AdjustChange {
  current?: LoopSectionPlan
  pending?: readonly LoopSectionPlan[]
}

export interface AdjustStanding {
  sections: readonly LoopSection[]
  sectionIndex: number
  /** Passes started so far (this audit's included) and the budget. */
  iteration: number
  maxIterations: number
  amendments: number
}

/** What is wrong with an amendment of the pending sections. Empty when the auditor may make it. */
export function adjustProblems(at: AdjustStanding, change: AdjustChange, rationale: string): string[] {
  const { current } = change
  const pending = change.pending ?? at.sections.slice(at.sectionIndex + 1)
  const total = at.sectionIndex + 1 + pending.length
  const needed = passesNeeded(pending.length)
  const left = at.maxIterations - at.iteration
  return [
    ...(current === undefined && change.pending === undefined
      ? ["an amendment changes the section under audit (currentSection), the sections after it (sections), or both"]
      : []),
    ...(current !== undefined && (current.title.trim() === "" || current.content.trim() === "") ? ["the section under audit needs a title and content"] : []),
    ...(rationale.trim() === "" ? ["an amendment needs its rationale"] : []),
    ...(total > MAX_LOOP_SECTIONS ? [`the plan would have ${total} sections (at most ${MAX_LOOP_SECTIONS})`] : []),
    ...(at.amendments >= MAX_LOOP_AMENDMENTS ? [`the loop has taken its ${MAX_LOOP_AMENDMENTS} amendments`] : []),
    ...(needed > left
      ? [`${pending.length} pending sections need ${needed} more passes and the loop has ${left} left (maxIterations ${at.maxIterations})`]
      : []),
    ...(at.sections[at.sectionIndex]?.status === "done" ? [`section ${at.sectionIndex + 1} is done already`] : []),
    ...pending.flatMap((s, i) => (s.title.trim() === "" || s.content.trim() === "" ? [`pending section ${i + 1} needs a title and content`] : [])),
  ]
}

/** Whether an absolute path (as its real path) is the folder or inside it. */
export function isInsideFolder(file: string, folder: string): boolean {
  return file === folder || file.startsWith(folder.endsWith("/") ? folder : `${folder}/`)
}

/** The paths a coder's tool call names outside the loop's worktree (empty: it stays inside, or names none). */
export function pathsOutsideWorktree(paths: readonly string[], worktree: string): string[] {
  return paths.filter((p) => !isInsideFolder(p, worktree))
}
