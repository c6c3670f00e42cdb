import type { DocumentFiles } from "../documents/document.ports"
import type { GoalCheck } from "./goal.contract"

// What the goal harness needs from the world to verify a goal: the host runs every check itself.

/** How one check ended, in words a refusal can list. */
export interface CheckOutcome {
  pass: boolean
  /** "exit code 0", "exit code 2", "timed out after 30 s (process tree killed)", "could not start: …", "file missing", … */
  summary: string
  /** The last lines of a command's output (bounded); "" for a file check. */
  outputTail: string
}

export interface GoalCheckRunner {
  run(check: GoalCheck): Promise<CheckOutcome>
}

/** The goal folder of one workspace: the document files of `.opencode/goal/`. */
export type GoalFiles = DocumentFiles

/** Sends the loop's prompts into a session without waiting for the turn (opencode: promptAsync). */
export interface GoalPrompter {
  send(sessionId: string, text: string): Promise<void>
}

/** What the loop asks about a session when its debounce ends. */
export interface SessionFacts {
  /** The agent that spoke last in the session ("forge", another agent, or undefined when it cannot be told). */
  speaker(sessionId: string): Promise<string | undefined>
  /** Money and tokens the session's assistant messages spent since `since` (epoch ms). */
  spend(sessionId: string, since: number): Promise<{ cost: number; tokens: number }>
  /** Whether the session holds a draft plan (the plan machine's write-ban tag). */
  hasDraftPlan(sessionId: string): Promise<boolean>
  /** Whether this process runs nothing in the session (after a restart: whether the loop must start again by itself). */
  isIdle(sessionId: string): Promise<boolean>
}

/** A loop prompt that could not be sent: the loop counts it toward its transport-failure pause. */
export class GoalSendError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "GoalSendError"
  }
}

/** The auditor sessions of goal audits (opencode: a fresh session of the forge agent, briefed like a loop's pass). */
export interface GoalAuditSessions {
  open(title: string): Promise<string>
  send(sessionId: string, text: string): Promise<void>
  /**
   * Resolves with the session's last words once its turn ended (its idle); rejects when the turn errored, when it ran
   * past `timeoutMs`, or when `signal` aborts (the goal_complete call was cancelled).
   */
  ended(sessionId: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<string>
  /** Stops the session's turn (best effort: an idle session has nothing to stop). */
  stop(sessionId: string): Promise<void>
}

/** The workspace as an audit sees it: a snapshot when the goal is armed, and the diff of the work since. */
export interface GoalAuditWorkspace {
  /** The workspace's files now, as a git tree (tracked and untracked, ignored files left out); null outside git. */
  snapshot(): Promise<string | null>
  /** What changed from `base` (a snapshot) to the workspace now, as a unified diff, bounded. */
  diff(base: string): Promise<string>
}

/** Whether the auditor's shells can be confined here: null when they can (or the user turned the sandbox off). */
export interface GoalAuditSandbox {
  problem(): Promise<string | null>
}
