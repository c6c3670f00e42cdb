import type { DriverFacts } from "../driver.claim"
import type { LoopHandoff, LoopPhase, LoopRole, LoopSection, LoopSectionPlan } from "./loop.gates"
import type { LoopOpenFinding } from "./loop.findings"
import type { LoopSandbox } from "./loop.sandbox"

// The loop machine's data: what a loop starts from, what it holds, what it is told, and what its effects are asked.

export interface LoopWorktree {
  /** Absolute path of the loop's git worktree. */
  dir: string
  branch: string
  /** The commit the branch started from. */
  base: string
}

/** A new loop (loop_start). */
export interface LoopStartInput {
  /** The loop's unique name (a slug); the instance id. */
  loopName: string
  title: string
  /** The session that started the loop: told when it ends. */
  hostSession: string
  /** The approved plan document the sections come from, or null for a plan given inline. */
  planPath: string | null
  /** The plan document's status when the loop was asked for (null for a plan given inline): only an approved plan runs. */
  planStatus: string | null
  /** The loop the asking session runs in, if any: a loop never starts another. */
  askedFrom: string | null
  worktree: LoopWorktree
  sections: LoopSectionPlan[]
  /** Passes (sessions opened) the loop may spend before it ends as errored. */
  maxIterations: number
  /** What confines the passes' shells, with the birth fact of whether it can start here. */
  sandbox: LoopSandbox
  startedAt: number
  /** The opencode process that starts the loop: it drives the first pass. */
  driver: string
}

/**
 * A loop that ended (not completed) born again from its record (loop_status {restart}): its identity, plan, section
 * progress and findings kept, its budgets new. The machine decides whether it may (the birth gate) and where it resumes
 * (the phase it ended in).
 */
export interface LoopResumeInput {
  resume: {
    /** How the loop ended: its final state. A completed loop is history and is refused. */
    ended: LoopOutcome
    /** Its context as its record holds it. */
    context: LoopContext
  }
  /** Whether the loop's sandbox starts here now (its mode and network stay the loop's own); null when it does. */
  sandboxProblem: string | null
  /** The opencode process that restarts it: it drives the first pass. */
  driver: string
  at: number
}

export type LoopInput = LoopStartInput | LoopResumeInput

/** One restart of a loop: when, from where (its final state, or the phase a forced restart left), what it had spent. */
export interface LoopRestart {
  at: number
  /** The state the loop restarted from: `stalled`, `errored`, `cancelled`, or `running.<phase>` (forced). */
  from: string
  /** Why the loop had ended (null for a forced restart of a running loop). */
  reason: string | null
  /** Passes the loop had spent since it started or last restarted (the budget starts again from none). */
  passes: number
}

export interface LoopAmendment {
  at: number
  /** The section under audit when the auditor amended the plan (1-based). */
  section: number
  rationale: string
  /** The titles of the sections after it, before and after the amendment. */
  before: string[]
  after: string[]
  /**
   * The sections from the one under audit on, whole, before and after the amendment. Records written before an
   * amendment kept them have only the titles above.
   */
  was?: LoopSectionPlan[]
  now?: LoopSectionPlan[]
}

export interface LoopContext extends Omit<LoopStartInput, "sections" | "driver"> {
  sections: LoopSection[]
  /** 0-based index of the section being coded or audited. */
  sectionIndex: number
  /**
   * The current pass's session, once opened; null while a pass is being opened. The loop keeps it (not the pass):
   * only its events reach the pass, and a loop that ends stops it.
   */
  session: string | null
  /** Every session the loop opened, oldest first. */
  sessions: string[]
  /** The role each session was opened for (a session of a record written before roles were kept has none). */
  roles: Record<string, LoopRole>
  /**
   * The opencode process that drove the loop last: the one that started it, opened the current session or took it
   * over (for the record and loop_status; who may drive it is the workspace's driver claim). Null only in records
   * written before it was kept.
   */
  driver: string | null
  /** Passes started (sessions opened) since the loop started or last restarted: what its budget counts. */
  iteration: number
  /** The phase of the current pass, or of the last one once the loop has ended: where a restart resumes. */
  phase: LoopPhase
  /** Every restart, oldest first. */
  restarts: LoopRestart[]
  /** The last applied handoff: what the next pass's brief carries (a coder's changes, an auditor's findings). */
  last: LoopHandoff | null
  amendments: LoopAmendment[]
  /** The review findings open in the loop: recorded by an auditor, open until an auditor deletes them. */
  findings: LoopOpenFinding[]
  /** The open findings when the current (or last) audit started: its history's "before". */
  auditBefore: LoopOpenFinding[]
  /** For each bug's place, how many consecutive dirty audits found it (a clean audit clears it). */
  recurring: Record<string, number>
  /** Why the loop ended, once it has. */
  reason: string | null
}

/** What a phase tells the pass it invokes: whose pass it is, and whether the budget has room for it. */
export interface LoopPassInput {
  phase: LoopPhase
  /** This pass's number (the loop's passes started, this one included) and the loop's budget. */
  iteration: number
  maxIterations: number
}

/** One pass's own data: the phase's session hands off one record per turn, and is reminded a bounded number of times. */
export interface LoopPassContext extends LoopPassInput {
  /** The current session's recorded handoff, applied when it goes idle. */
  pending: LoopHandoff | null
  /** Turns the current session ended without a handoff. */
  nudges: number
  /** Errors of the current session since its last handoff record (three in a row end the loop). */
  errors: number
}

/** What a pass's effects see: the loop's context with the pass's own over it (lifecycle.step.ts runs them so). */
export type LoopPassView = LoopContext & LoopPassContext

/** How a pass ended: its final state, and what the phase decides on (the handoff applied, or why the loop errs). */
export type LoopPassOutput =
  | { end: "handedOff"; handoff: LoopHandoff | null }
  | { end: "failed"; error: string }
  | { end: "outOfIterations" }
  | { end: "stalled"; nudges: number }
  | { end: "errors"; count: number; error: string }
  | { end: "silent"; silentMs: number }

export type LoopEvent =
  /** `driver`: the opencode process that opened the session (it runs the pass, and sees its idle). */
  | { type: "loop.session.opened"; session: string; driver: string }
  | { type: "loop.session.failed"; error: string }
  /**
   * A phase session records its handoff; it is applied when that session goes idle. `openBugs` is the loop's own
   * count, added as it hands the event on to its pass (the bugs open in the audit's scope): never the sender's.
   */
  | {
      type: "loop.handoff"
      session: string
      handoff: LoopHandoff
      openBugs?: number
      /** The pass's other sessions still working (its subagents, busy or retrying) as the host read them: none may be. */
      busy?: string[]
    }
  /** The auditor records a finding (review_write), before its handoff. */
  | { type: "loop.review.write"; session: string; finding: LoopOpenFinding }
  /** The auditor deletes a finding that is fixed (review_delete), before its handoff. */
  | { type: "loop.review.delete"; session: string; section: number; file: string; line: number }
  | { type: "loop.idle"; session: string }
  /** opencode reported an error of the session's turn (a provider failure, an aborted stream). */
  | { type: "loop.session.error"; session: string; error: string }
  /** The session has worked without a sign of life for `silentMs`, past the loop's stall timeout (the host's watch). */
  | { type: "loop.session.silent"; session: string; silentMs: number }
  /**
   * The auditor of a section audit amends the plan: `current` edits the section under audit in place (its progress
   * kept), `pending` replaces every section after it; at least one of them.
   */
  | { type: "loop.adjust"; session: string; current?: LoopSectionPlan; pending?: LoopSectionPlan[]; rationale: string; now: number }
  /** `session`: the session that asks (null: the user, outside any session); a loop's own pass never cancels it. */
  | { type: "loop.cancel"; reason: string; session: string | null }
  | { type: "loop.fail"; reason: string }
  /**
   * A running loop restarted (loop_status {restart}): its current pass is stopped and its phase starts again with a new
   * session and new budgets. Only with `force` (a running loop may only look stuck), and only by a process that may
   * drive it (`driver`: the loop's driver claim as that process read it).
   */
  | { type: "loop.restart"; force: boolean; driver: DriverFacts; at: number }
  /**
   * An opencode process asks to drive the loop (after its restore, or when the loop's driver ended): `driver` is the
   * loop's driver claim as that process read it. Taken over, it drives the pass from now on; a session being opened
   * may never have been, so it is opened again.
   */
  | { type: "loop.restored"; driver: DriverFacts }
  /**
   * Asked, never sent: `snapshot.can({ type: "tool.use", tool, paths })` is the loop's gate on its sessions' tools: an
   * auditor changes nothing, a coder works only in the worktree. `paths`: the real paths the call writes or runs in.
   */
  | { type: "tool.use"; tool: string; paths: string[] }

export type LoopEmitted = { type: "tool.permitted"; tool: string }

/** The events a pass takes: the ones the loop hands on to it, each of the current pass's session or about it. */
export type LoopPassEvent = Extract<
  LoopEvent,
  {
    type:
      | "loop.session.opened"
      | "loop.session.failed"
      | "loop.handoff"
      | "loop.idle"
      | "loop.session.error"
      | "loop.session.silent"
      | "loop.adjust"
      | "loop.review.write"
      | "loop.review.delete"
      | "loop.restored"
  }
>

/** The loop's tags; `opening` and `working` are its pass's (loopPassOf reads them). */
export type LoopTag = "live" | "handoff-only" | "write-ban"
export type LoopPassTag = "opening" | "working"

/** How a loop ended: its final state. */
export type LoopOutcome = "completed" | "cancelled" | "errored" | "stalled"

/** What a brief tells a phase session: the phase's own work, or a reminder that the turn ended without a handoff. */
export type LoopBrief = "phase" | "nudge"
