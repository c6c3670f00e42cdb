import type { SnapshotFrom } from "xstate"
import type { LoopHandoff, LoopPhase } from "../../machines/loop/loop.gates"
import { type LoopEvent, type loopMachine, loopPassOf } from "../../machines/loop/loop.machine"
import { CODED, OPEN_BUG, RESUMES, T0, restartOf, resumeFor } from "./loop.fixtures"
import { MODEL_DRIVER, nextPassSession } from "./loop.world"

// The loop model world's walks: single runs of usual records, one event per state, each told apart by its start time
// (eventsIn reads the context only): the budget walks, the restart walk, and the loops restarted from their records.
// And the records every walk and path hands off.

type Snapshot = SnapshotFrom<typeof loopMachine>

/** A clean section audit: a warning only, and its summary. */
export const CLEAN: LoopHandoff = {
  role: "auditor",
  findings: [{ severity: "warning", file: "src/parser.ts", line: 40, description: "errors could name the column" }],
  summary: { done: ["the parser reads the whole grammar"], deviations: ["unary minus token"], followUps: ["name the column in errors"] },
  notes: null,
}
/** A clean audit without a summary: enough for the final audit, malformed for a section audit. */
export const BARE: LoopHandoff = { role: "auditor", findings: [], summary: null, notes: null }
/** An audit that found a bug. */
export const BUG: LoopHandoff = {
  role: "auditor",
  findings: [{ severity: "bug", file: "src/parser.ts", line: 12, description: "unary minus binds looser than multiplication" }],
  summary: null,
  notes: "Add a test for -2*3.",
}
/** The post-action's exit (loop_complete): the loop completes, or ends as errored. */
export const COMPLETE: LoopHandoff = {
  role: "post_action",
  outcome: "completed_with_issues",
  steps: ["ran npm test on the branch"],
  followUps: ["name the column in errors"],
  notes: null,
}
export const POST_FAILED: LoopHandoff = {
  role: "post_action",
  outcome: "failed",
  steps: ["npm test fails on the branch"],
  followUps: [],
  notes: "the build is broken",
}
/** Malformed: a summary while a bug remains. */
export const BUG_WITH_SUMMARY: LoopHandoff = { ...BUG, summary: { done: ["most of it"], deviations: [], followUps: [] } }

export const deleteFinding = (session: string, f: { section: number; file: string; line: number }): LoopEvent => ({
  type: "loop.review.delete",
  session,
  section: f.section,
  file: f.file,
  line: f.line,
})

/**
 * The budget walks: each one a single run of usual records to where its budget runs out, told apart by its start time
 * (eventsIn reads the context only). The audits a walk finds dirty: every one, none, or only the first.
 */
export const WALKS = {
  [T0 + 1]: { name: "the coder's seventh pass leaves no pass for its audit", maxIterations: 7, dirty: "every" },
  [T0 + 2]: { name: "the fix of a dirty final audit takes the sixth pass and leaves none for the final audit", maxIterations: 6, dirty: "final" },
  [T0 + 3]: { name: "a dirty audit at the sixth pass leaves none for its fix", maxIterations: 6, dirty: "every" },
  [T0 + 4]: { name: "the last section's audit at the sixth pass leaves none for the final audit", maxIterations: 6, dirty: "first" },
  [T0 + 5]: { name: "a clean final audit at the seventh pass leaves none for the post-action", maxIterations: 7, dirty: "first" },
} as const satisfies Record<number, { name: string; maxIterations: number; dirty: "every" | "final" | "first" }>
/**
 * The restart walk: a single run of usual records in which each phase, the first time it works, is restarted (forced)
 * once: the phase starts again with a new session and its budget from none.
 */
export const RESTART_WALK = T0 + 6
/** Loops that ended, restarted from their records (each one walks on with usual records), and two refused restarts. */
export const RESUMED = [
  resumeFor(RESUMES[0], {
    ended: "stalled",
    phase: "auditing",
    done: 0,
    passes: 2,
    reason: "stalled: the session ended 3 turns without a handoff",
    findings: [OPEN_BUG],
  }),
  resumeFor(RESUMES[1], { ended: "errored", phase: "coding", done: 1, passes: 6, reason: "max_iterations: 6 passes spent" }),
  resumeFor(RESUMES[2], { ended: "cancelled", phase: "final_auditing", done: 2, passes: 5, reason: "cancelled: by request" }),
  resumeFor(RESUMES[3], {
    ended: "stalled",
    phase: "post_action",
    done: 2,
    passes: 6,
    reason: "stall_timeout: the pass's session worked without a sign of life for 16 min",
  }),
  resumeFor(RESUMES[4], { ended: "errored", phase: "final_audit_fix", done: 2, passes: 6, reason: "errors: 3 session errors in a row; the last: APIError" }),
  resumeFor(RESUMES[5], { ended: "completed", phase: "post_action", done: 2, passes: 6, reason: "completed" }),
  resumeFor(RESUMES[6], {
    ended: "stalled",
    phase: "coding",
    done: 0,
    passes: 1,
    reason: "stalled",
    sandboxProblem: "bwrap is not installed (no bwrap on PATH)",
  }),
]
export const RESUMED_STARTS = new Set(RESUMED.map(({ input }) => input.resume.context.startedAt))

export function budgetWalk(state: Snapshot, phase: LoopPhase, dirty: "every" | "final" | "first" | "none"): LoopEvent[] {
  const c = state.context
  const pass = loopPassOf(state)
  if (pass?.hasTag("opening") === true) return [{ type: "loop.session.opened", session: nextPassSession(c), driver: MODEL_DRIVER }]
  const current = c.session as string
  if ((pass?.context.pending ?? null) !== null) return [{ type: "loop.idle", session: current }]
  // A bug recorded before a restart: the audit deletes it (it is fixed) before it can go clean.
  const open = c.findings[0]
  if ((phase === "auditing" || phase === "final_auditing") && open !== undefined) return [deleteFinding(current, open)]
  const isDirty = phase === "final_auditing" ? dirty === "final" : phase === "auditing" && (dirty === "every" || (dirty === "first" && c.iteration === 2))
  const handoff =
    phase === "post_action" ? COMPLETE : phase === "coding" || phase === "final_audit_fix" ? CODED : isDirty ? BUG : phase === "final_auditing" ? BARE : CLEAN
  return [{ type: "loop.handoff", session: current, handoff }]
}

export function restartWalk(state: Snapshot, phase: LoopPhase): LoopEvent[] {
  const c = state.context
  const pass = loopPassOf(state)
  if (pass?.hasTag("opening") === true) return [{ type: "loop.session.opened", session: nextPassSession(c), driver: MODEL_DRIVER }]
  const current = c.session as string
  if ((pass?.context.pending ?? null) !== null) return [{ type: "loop.idle", session: current }]
  if (!c.restarts.some((r) => r.from === `running.${phase}`)) return [restartOf(true)]
  // The first final audit finds a bug, so the final audit's fix is walked too.
  const final = c.last?.role === "auditor" ? BUG : BARE
  const handoff = phase === "post_action" ? COMPLETE : phase === "coding" || phase === "final_audit_fix" ? CODED : phase === "auditing" ? CLEAN : final
  return [{ type: "loop.handoff", session: current, handoff }]
}
