import type { Attestation, BudgetAdditions, CheckLogLine, CheckRun, GoalLimits, GoalSpend, GoalStopReason, GoalTerms, TurnActivity } from "./goal.gates"
import type { DialogAnswerFields } from "../dialog.gates"
import type { DriverFacts } from "../driver.claim"
import type { GoalMachineStatus, LiveGoalStatus } from "./goal.status"
import type { GoalAudit, GoalAuditFinding } from "./goal.audit"

// The goal machine's vocabulary: its input, context, events, tags and the document changes its effect writes.

/** What the writing session held when the goal was written, as the service read it just before: its birth gate's facts. */
export interface GoalBirthFacts {
  /** The write asks to arm the goal for the writing session at once (goal_write arm=true); false only queues it. */
  armAsked: boolean
  /** The writing session's live goal when the write was asked (`liveFor`, status by `goalStatusOf`); null when none. */
  liveGoal: { path: string; status: LiveGoalStatus } | null
}

export interface GoalInput {
  /** Workspace-relative path of the goal document; the instance id. */
  goalPath: string
  /** The session that wrote the goal; a queued goal is bound to the session that arms it. */
  sessionId: string | null
  /** The contract as Forge last wrote it (the budgets are `limits`). */
  contract: GoalTerms
  limits: GoalLimits
  /** When the goal was written (epoch ms): the queue is served oldest first. */
  createdAt: number
  /** The document the goal starts with: written by the `writeDocument` effect, never kept in the context. */
  document: string
  /** How long the session must stay idle before the loop decides (ms); GOAL_DEBOUNCE_MS when absent. */
  debounceMs?: number
  /** What the birth gate decides on: one live goal per session, so a write asking to arm beside one is refused. */
  birth: GoalBirthFacts
  /** `/goal … --audit`: completing needs a clean audit by an auditor session too, for the goal's whole life. */
  audit?: boolean
}

/** Who asks: the user's own /goal command acts directly, the model's request may need the user's dialog. */
export type GoalRequester = "user" | "model"

export interface GoalContext extends Omit<GoalInput, "document" | "debounceMs" | "birth" | "audit"> {
  /** The goal's debounce, fixed at its birth: every idle of its loop is debounced by it, in whichever process. */
  debounceMs: number
  /** The facts the birth gate decided on (history); null for records written before they were kept. */
  birth: GoalBirthFacts | null
  revision: number
  turnsUsed: number
  armedAt: number | null
  stopReason: GoalStopReason | null
  blocker: string | null
  /** The loop's one deadline: when a debounced idle may be acted on. */
  dueAt: number | null
  /** A continuation turn was sent and has not been entered in the Turn Ledger yet. */
  turnOpen: boolean
  /** What the open continuation turn has done so far. */
  activity: TurnActivity
  /** Continuation turns in a row that did nothing. */
  idleStreak: number
  transportFailures: number
  /** The last turn entered in the ledger, for the document write that enters it. */
  lastTurn: { turn: number; activity: TurnActivity } | null
  spend: GoalSpend
  /** The session an arm or resume dialog would bind, and what a resume adds. */
  pending: { sessionId: string; limits: GoalLimits } | null
  /** Why the goal was discarded. */
  reason: string | null
  /** Job wakes due on this idle: they ride with the next brief (one prompt per idle), or go out when none follows. */
  wakes: string[]
  /**
   * What the document says when that would pass a gate the user holds (completed; active for a queued or paused
   * goal): the goal stays where it is until the user confirms through the dialog. Older records are upgraded to null.
   */
  pendingDocument: GoalMachineStatus | null
  /** The last dialog the goal opened (0: none yet); the one open while it is in a dialog state. */
  dialog: number
  /** The goal's audit, when it was born with one (the completion gate's second key); null: the checks alone decide. */
  audit: GoalAudit | null
}

export type GoalEvent =
  /** Arm a queued goal for a session; `draftPlan` is the plan lifecycle's answer for that session. */
  | { type: "goal.arm"; sessionId: string; draftPlan: boolean }
  | ({ type: "goal.resume"; sessionId: string; draftPlan: boolean; now: number } & BudgetAdditions)
  /** The user's answer to the dialog numbered `dialog` (the context's `dialog` when it opened). */
  /** `auditBase`: the workspace as it stands at this arm (a git tree), for a goal with an audit that has none yet. */
  | ({ type: "dialog.allow"; now: number; auditBase?: string | null } & DialogAnswerFields)
  | ({ type: "dialog.reject" } & DialogAnswerFields)
  /** A new revision of the contract; `document` is the whole new text, written by the `writeDocument` effect. */
  | { type: "goal.revise"; contract: GoalTerms; limits: GoalLimits; document: string }
  | { type: "goal.pause"; by: GoalRequester; blocker?: string }
  | { type: "goal.discard"; by: GoalRequester; reason?: string }
  /** Check results the host ran (advisory or at the gate), for the Check Log. */
  | { type: "goal.checked"; entries: CheckLogLine[] }
  /**
   * Completion: the host's fresh run of every check, and the model's attestations. `shown`: the run the user saw on the
   * call's line before its dialog (`run` null: none) and the call (`tool`); absent where a harness draws no line.
   */
  | {
      type: "goal.complete"
      run: { revision: number; results: CheckRun[] }
      attestations: Attestation[]
      shown?: { tool: string; run: { revision: number; results: CheckRun[] } | null }
    }
  | { type: "goal.activity"; kind: keyof TurnActivity }
  /** The session went idle: the loop's debounce starts (or starts again). */
  | { type: "session.idle"; now: number }
  | { type: "session.busy" }
  /**
   * The debounce deadline passed: the facts the loop decides on, gathered by the harness at that moment. `driver`:
   * the goal's driver claim as the deciding process read it (only the claim's holder, or a taker-over, decides).
   */
  | { type: "loop.due"; now: number; speaker: "forge" | "other"; draftPlan: boolean; spend: GoalSpend; driver: DriverFacts }
  /**
   * An opencode process takes the goal over (after its restore, or when the goal's driver ended), unless a live
   * process holds the goal's driver claim: a dialog open there died with the process that showed it and closes
   * unanswered; a working goal's loop starts again from a debounce (no idle comes to a process that did not run the
   * session's turn). `driver`: the claim as the taking process read it.
   */
  | { type: "goal.restored"; driver: DriverFacts; now: number }
  /** A job's wake, due while the session is idle: the next brief carries it instead of racing it. */
  | { type: "job.wake"; text: string }
  /** The continuation brief could not be sent. */
  | { type: "loop.failed"; now: number; error: string }
  /** The document on disk says this status (a hand edit, `edit`, `sed`): held, followed, or nothing new. */
  | { type: "goal.document.changed"; status: GoalMachineStatus }
  /** The host opened the audit's auditor session: its shells are read-only, and its tool calls are asked here. */
  | { type: "goal.audit.opened"; session: string }
  /** A session asks to call a tool; only an auditor session is asked (a tool.execute.before gate). */
  | { type: "goal.audit.tool"; session: string; tool: string }
  /** review_write from a session: the audit's auditor records a finding. */
  | { type: "goal.review.write"; session: string; finding: Omit<GoalAuditFinding, "session"> }
  /** review_delete from a session: the audit's auditor deletes a finding it found fixed. */
  | { type: "goal.review.delete"; session: string; file: string; line: number }
  /** The auditor session's turn ended (its idle), with its last words as the audit's summary. */
  | { type: "goal.audit.done"; session: string; summary: string; now: number }
  /** The audit could not run or finish (no sandbox here, the session failed or timed out, the call was cancelled). */
  | { type: "goal.audit.failed"; error: string; now: number }

export type GoalTag = "live" | "driving" | "awaiting-user" | "due" | "auditing"

/** What a step changes in the goal's document, for the `writeDocument` effect. */
export type GoalDocumentChange =
  | "created"
  | "armed"
  | "revised"
  | "paused"
  | "resumed"
  | "checked"
  | "completed"
  | "abandoned"
  | "continued"
  | "ledgered"
  | "audited"
