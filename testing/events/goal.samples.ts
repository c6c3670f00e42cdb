import { type SnapshotFrom, transition } from "xstate"
import { DRIVER_CLAIM_MS } from "../../machines/driver.claim"
import { type GoalLimits, type GoalTerms, hasActivity } from "../../machines/goal/goal.gates"
import { type GoalEvent, goalMachine } from "../../machines/goal/goal.machine"
import { type GoalMachineStatus, goalStatusOf } from "../../machines/goal/goal.status"

// The goal's event samples, which its model worlds (goal.worlds.ts) offer state by state. Times are fixed per event,
// so a path may replay them out of order; the goal lifecycle only ever compares the times its events carry.

export type GoalSnapshot = SnapshotFrom<typeof goalMachine>

/** What a harness names its own way (Forge's model test passes its SUT's). */
export interface GoalWorldOptions {
  /** The session the goal is armed in. */
  session?: string
  /** The process that decides the goal's idle and opens its sessions. */
  driver?: string
  /** What a continuation brief that cannot be sent fails with. */
  sendFailure?: string
  /** The objective of the session's live goal, where a config's birth facts name one. */
  heldObjective?: string
  /** The workspace snapshot the audit world's arm carries. */
  auditBase?: string
  /** What `goal.audit.failed` says when the auditor session cannot open (null) or its turn fails. */
  auditFailure?: (session: string | null) => string
}

export const MINUTE = 60_000
/** Another opencode process on the workspace, deciding a goal's idle. */
export const OTHER_DRIVER = "another-process"
export const T0 = Date.parse("2026-11-30T03:00:00.000Z")
export const T_ALLOW = T0 + MINUTE
const T_IDLE = T0 + 2 * MINUTE
const T_RESUME = T0 + 30 * MINUTE
const T_AUDIT = T0 + 5 * MINUTE

export const limits: GoalLimits = { maxTurns: 2, maxMinutes: 60, maxCost: 1, maxTokens: 1_000 }
const checks: GoalTerms["checks"] = [
  { kind: "command", command: "npm test", timeoutS: 120 },
  { kind: "contains", file: "src/a.ts", text: "export const A" },
]
export const terms = (objective: string): GoalTerms => ({ objective, success: ["c1"], checks, constraints: [], nonGoals: ["refactoring"] })
/** The one revision of every world: a second criterion and no check left, so nothing can arm, resume or complete it. */
const revisedTerms = (objective: string): GoalTerms => ({ ...terms(objective), success: ["c1", "c2"], checks: [] })

/** The user's allow of the dialog the goal opened last (the one open, in a dialog state), or of the one given. */
export const allow = ({ context }: GoalSnapshot, dialog = context.dialog): GoalEvent => ({ type: "dialog.allow", dialog, now: T_ALLOW })
export const reject = ({ context }: GoalSnapshot, dialog = context.dialog): GoalEvent => ({ type: "dialog.reject", dialog })
/**
 * The user's answers: in a dialog state to the dialog open now, and a late allow and reject of the dialog before it
 * (closed: the goal left the dialog state and came back, or it is the goal's first dialog and names none); elsewhere
 * to the last one.
 */
export function answers(state: GoalSnapshot): GoalEvent[] {
  const open = [allow(state), reject(state)]
  const late = state.context.dialog - 1
  return state.hasTag("awaiting-user") ? [...open, allow(state, late), reject(state, late)] : open
}
export const pauseByUser: GoalEvent = { type: "goal.pause", by: "user" }
export const pauseBlocked: GoalEvent = { type: "goal.pause", by: "model", blocker: "the API key is missing" }
export const discardByUser: GoalEvent = { type: "goal.discard", by: "user", reason: "not needed" }
export const discardByModel: GoalEvent = { type: "goal.discard", by: "model", reason: "wrong approach" }
/** goal_check: the machine counts the run, whatever its entries say. */
export const checkedAllPass: GoalEvent = { type: "goal.checked", entries: [] }
export const idle: GoalEvent = { type: "session.idle", now: T_IDLE }
export const busy: GoalEvent = { type: "session.busy" }
export const wrote: GoalEvent = { type: "goal.activity", kind: "writes" }
export const wake: GoalEvent = { type: "job.wake", text: "[forge:job-complete] Job job_1: exited with exit code 0" }
export const revise = ({ context }: GoalSnapshot): GoalEvent => ({
  type: "goal.revise",
  contract: revisedTerms(context.contract.objective),
  limits: context.limits,
  document: "",
})

/**
 * The status line of the document rewritten: to each status the machine holds or follows from here, and back to the
 * goal's own status while one is held. Only where no dialog is open and the contract is the first.
 */
export function documentEdits(state: GoalSnapshot): GoalEvent[] {
  if (state.status !== "active" || state.hasTag("awaiting-user")) return []
  const status = goalStatusOf(state.value)
  const holds = state.context.pendingDocument ?? status
  const tos: GoalMachineStatus[] = status === "active" ? ["completed", "paused", "abandoned"] : ["active", "completed", "abandoned"]
  const back: GoalMachineStatus[] = state.context.pendingDocument === null ? [] : [status]
  return [...tos, ...back].filter((to) => to !== holds).map((to): GoalEvent => ({ type: "goal.document.changed", status: to }))
}

/** goal_complete as the service's own run produces it: every check of the current revision, all passing or the last failing. */
export function completions({ context }: GoalSnapshot): GoalEvent[] {
  // The service's run counts as check activity: never offered where that could decide a no-progress pause.
  if (context.turnOpen && !hasActivity(context.activity)) return []
  const attested = context.contract.success.map((criterion) => ({ criterion, evidence: `${criterion} holds` }))
  const results = (failing: number[]) => context.contract.checks.map((_, i) => ({ item: i + 1, pass: !failing.includes(i + 1) }))
  const passing: GoalEvent = { type: "goal.complete", run: { revision: context.revision, results: results([]) }, attestations: attested }
  if (context.contract.checks.length === 0) return [passing]
  return [passing, { type: "goal.complete", run: { revision: context.revision, results: results([context.contract.checks.length]) }, attestations: attested }]
}

/** When the time budget of the goal's arm runs out. */
export const timeUp = ({ context }: GoalSnapshot) => (context.armedAt ?? 0) + context.limits.maxMinutes * MINUTE

/** The facts a `loop.due` may say otherwise than the deadline's own: its time, speaker, draft plan, spend, driver. */
export type DueFacts = Partial<Omit<Extract<GoalEvent, { type: "loop.due" }>, "type" | "driver">> & { me?: string; holderAlive?: boolean }

/** The samples that name the harness's own session, process and failures. */
export function goalSamples(o: Required<GoalWorldOptions>) {
  const arm = (draftPlan: boolean): GoalEvent => ({ type: "goal.arm", sessionId: o.session, draftPlan })
  const resume = (draftPlan: boolean, add: { addTurns?: number; addMinutes?: number } = {}, now = T_RESUME): GoalEvent => ({
    type: "goal.resume",
    sessionId: o.session,
    draftPlan,
    now,
    addTurns: add.addTurns ?? 0,
    addMinutes: add.addMinutes ?? 0,
  })
  /** This process takes the goal over from another one, which has ended (or still runs: then the goal stays with it). */
  const takeOver = (holderAlive: boolean): GoalEvent => ({
    type: "goal.restored",
    now: T_IDLE,
    driver: { me: o.driver, claim: { holder: OTHER_DRIVER, until: T_IDLE + DRIVER_CLAIM_MS }, holderAlive, now: T_IDLE },
  })
  /** The debounce timer fires: at the deadline unless `now` says otherwise, with the session's facts at that moment. */
  const due = (state: GoalSnapshot, facts: DueFacts = {}): GoalEvent => {
    const { me = o.driver, holderAlive = true, ...rest } = facts
    const now = rest.now ?? state.context.dueAt ?? 0
    return {
      type: "loop.due",
      now,
      speaker: "forge",
      draftPlan: false,
      spend: state.context.spend,
      ...rest,
      // The goal's driver claim as the deciding process reads it: this process's own, renewed until well after now.
      driver: { me, claim: { holder: o.driver, until: now + DRIVER_CLAIM_MS }, holderAlive, now },
    }
  }
  /** The send fails: only where the loop's decision at the deadline would send the continuation brief. */
  const failedSend = (state: GoalSnapshot): GoalEvent[] => {
    const [after] = transition(goalMachine, state, due(state))
    const sends = after.matches({ active: "working" }) && after.context.turnsUsed === state.context.turnsUsed + 1
    return sends ? [{ type: "loop.failed", now: state.context.dueAt ?? 0, error: `the continuation brief could not be sent: ${o.sendFailure}` }] : []
  }
  /** The audit world's auditor sessions: one per audit, numbered from 1. */
  const auditor = (round: number) => `ses_auditor_${round}`
  const auditTool = (session: string, tool: string): GoalEvent => ({ type: "goal.audit.tool", session, tool })
  const finding = (session: string, line: number, severity: "bug" | "warning"): GoalEvent => ({
    type: "goal.review.write",
    session,
    finding: { file: "src/a.ts", line, severity, description: `a ${severity} at line ${line}`, scenario: null },
  })
  const deleted = (session: string, line: number): GoalEvent => ({ type: "goal.review.delete", session, file: "src/a.ts", line })
  const auditFailed = (session: string | null): GoalEvent => ({ type: "goal.audit.failed", error: o.auditFailure(session), now: T_AUDIT })
  const auditDone = (session: string, summary: string): GoalEvent => ({ type: "goal.audit.done", session, summary, now: T_AUDIT })
  return {
    auditBase: o.auditBase,
    arm,
    resume,
    takeovers: [takeOver(false), takeOver(true)],
    due,
    failedSend,
    auditor,
    auditTool,
    finding,
    deleted,
    auditFailed,
    auditDone,
  }
}

export type GoalSamples = ReturnType<typeof goalSamples>
