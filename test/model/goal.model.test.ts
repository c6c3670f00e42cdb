import { DRIVER_CLAIM_MS } from "../../machines/driver.claim"
import { isDeepStrictEqual } from "node:util"
import { type SnapshotFrom, transition } from "xstate"
import { type GoalLimits, type GoalTerms, hasActivity } from "../../machines/goal/goal.gates"
import { type GoalBirthFacts, type GoalEvent, type GoalInput, goalMachine } from "../../machines/goal/goal.machine"
import { type GoalMachineStatus, goalStatusOf } from "../../machines/goal/goal.status"
import { HELD_OBJECTIVE } from "./goal.birth"
import { SEND_FAILURE, SESSION, startGoalSut } from "./goal.sut"
import { FakeAuditWorkspace, MODEL_DRIVER } from "./goal.fakes"
import { auditFailureText } from "./goal.sut.audit"
import { describeModel } from "../../testing"

// Paths generated from the goal machine drive the real GoalService and GoalLoop on the workspace's one LifecycleHost
// (SQLite in a temp workspace) writing real goal documents; at every step service, database row and log, document,
// prompts and the loop's timer must agree with the model (goal.agreement.ts). Fakes only at the edges: clock, timers,
// prompter, session facts, check runner (goal.fakes.ts).
//
// Two worlds, each a config (told apart by the goal's objective, which a revision keeps): in "requests" the user and
// the model ask and answer dialogs and the session never goes idle; in "loop" the goal is armed at once and the loop
// runs. Each world offers, state by state, what its actors can produce there — the service's own results included
// (goal_complete's run is the checks the contract has, for the revision it has; a failing send only where the loop
// would send) — and keeps its paths few enough for a run of well under a minute: where a world stops offering events
// is said in it. Times are fixed per event (as in the job model), so a path may replay them out of order; the goal
// lifecycle only ever compares the times its events carry.
//
// Reached through the service's side roads, or asked only:
// - goal.revise on a queued goal: goal_write revise=true only revises the live goal, and no caller follows a queued
//   goal's document; the SUT edits the document by hand and calls the service's own follower (followDocument).
// - goal.checked on a queued goal: goal_check only checks a live goal (NoGoalError), so nothing sends it; the SUT asks
//   the machine (`can`), as the plan's tool gate does, and sees the service refuse.
// - goal.resume on a queued goal is not producible at all (/goal resume arms it: goal.arm), so no world offers it.
// - goal.arm on a live goal: goal_resume resumes it instead, so the SUT asks goal_write arm=true, which the new
//   goal's birth gate refuses (one live goal per session) before anything is written.
//
// A third world ends at the birth gate: the session holds a live goal (the SUT arms one first, by the user's own
// command) and goal_write asks to arm a new one beside it. The machine refuses that birth; the service throws its
// words, and nothing of the new goal is written or recorded.
// - goal.complete on an active goal is two steps of the service: its run enters the Check Log (goal.checked), then
//   the gate; the SUT expects both (goal.sut.ts).

type Snapshot = SnapshotFrom<typeof goalMachine>

const MINUTE = 60_000
/** Another opencode process on the workspace, deciding a goal's idle. */
const OTHER_DRIVER = "another-process"
const T0 = Date.parse("2026-11-30T03:00:00.000Z")
const T_ALLOW = T0 + MINUTE
const T_IDLE = T0 + 2 * MINUTE
const T_RESUME = T0 + 30 * MINUTE

const limits: GoalLimits = { maxTurns: 2, maxMinutes: 60, maxCost: 1, maxTokens: 1_000 }
const checks: GoalTerms["checks"] = [
  { kind: "command", command: "npm test", timeoutS: 120 },
  { kind: "contains", file: "src/a.ts", text: "export const A" },
]
const terms = (objective: string): GoalTerms => ({ objective, success: ["c1"], checks, constraints: [], nonGoals: ["refactoring"] })
/** The one revision of every world: a second criterion and no check left, so nothing can arm, resume or complete it. */
const revisedTerms = (objective: string): GoalTerms => ({ ...terms(objective), success: ["c1", "c2"], checks: [] })
const pathOf = (objective: string) => `.opencode/goal/2026-11-30-${objective.toLowerCase()}.md`
/** The goal as goal_write writes it at T0 (its path follows from the objective and the date): by default arm=false. */
const inputFor = (objective: string, birth: GoalBirthFacts = { armAsked: false, liveGoal: null }): GoalInput => ({
  goalPath: pathOf(objective),
  sessionId: null,
  contract: terms(objective),
  limits,
  createdAt: T0,
  document: "",
  birth,
})
/** goal_write arm=true while the session's goal (armed first by the SUT) is active. */
const refusedBirth: GoalBirthFacts = { armAsked: true, liveGoal: { path: pathOf(HELD_OBJECTIVE), status: "active" } }

/** The user's allow of the dialog the goal opened last (the one open, in a dialog state), or of the one given. */
const allow = ({ context }: Snapshot, dialog = context.dialog): GoalEvent => ({ type: "dialog.allow", dialog, now: T_ALLOW })
const reject = ({ context }: Snapshot, dialog = context.dialog): GoalEvent => ({ type: "dialog.reject", dialog })
/**
 * The user's answers: in a dialog state to the dialog open now, and a late allow and reject of the dialog before it
 * (closed: the goal left the dialog state and came back, or it is the goal's first dialog and names none); elsewhere
 * to the last one.
 */
function answers(state: Snapshot): GoalEvent[] {
  const open = [allow(state), reject(state)]
  const late = state.context.dialog - 1
  return state.hasTag("awaiting-user") ? [...open, allow(state, late), reject(state, late)] : open
}
/**
 * Every dialog the goal opens has a new number, so a goal that asks again and again would never reach a state it was
 * in before: the worlds open at most this many dialogs on a path, enough for every dialog transition (an arm, then a
 * completion, a resume or a discard) and for a dialog state entered twice (its first dialog's late answer refused).
 */
const MAX_DIALOGS = 2
const arm = (draftPlan: boolean): GoalEvent => ({ type: "goal.arm", sessionId: SESSION, draftPlan })
const resume = (draftPlan: boolean, add: { addTurns?: number; addMinutes?: number } = {}, now = T_RESUME): GoalEvent => ({
  type: "goal.resume",
  sessionId: SESSION,
  draftPlan,
  now,
  addTurns: add.addTurns ?? 0,
  addMinutes: add.addMinutes ?? 0,
})
const pauseByUser: GoalEvent = { type: "goal.pause", by: "user" }
const pauseBlocked: GoalEvent = { type: "goal.pause", by: "model", blocker: "the API key is missing" }
const discardByUser: GoalEvent = { type: "goal.discard", by: "user", reason: "not needed" }
const discardByModel: GoalEvent = { type: "goal.discard", by: "model", reason: "wrong approach" }
/** goal_check: the machine counts the run, whatever its entries say (the SUT runs every check, all passing). */
const checkedAllPass: GoalEvent = { type: "goal.checked", entries: [] }
/** This process takes the goal over from another one, which has ended (or still runs: then the goal stays with it). */
const takeOver = (holderAlive: boolean): GoalEvent => ({
  type: "goal.restored",
  now: T_IDLE,
  driver: { me: MODEL_DRIVER, claim: { holder: OTHER_DRIVER, until: T_IDLE + DRIVER_CLAIM_MS }, holderAlive, now: T_IDLE },
})
const takeovers = [takeOver(false), takeOver(true)]
const idle: GoalEvent = { type: "session.idle", now: T_IDLE }
const busy: GoalEvent = { type: "session.busy" }
const wrote: GoalEvent = { type: "goal.activity", kind: "writes" }
const wake: GoalEvent = { type: "job.wake", text: "[forge:job-complete] Job job_1: exited with exit code 0" }
const revise = ({ context }: Snapshot): GoalEvent => ({
  type: "goal.revise",
  contract: revisedTerms(context.contract.objective),
  limits: context.limits,
  document: "",
})

/**
 * The status line of the document rewritten (issue 23 §1b): to each status the machine holds or follows from here,
 * and back to the goal's own status while one is held. Only where no dialog is open and the contract is the first.
 */
function documentEdits(state: Snapshot): GoalEvent[] {
  if (state.status !== "active" || state.hasTag("awaiting-user")) return []
  const status = goalStatusOf(state.value)
  const holds = state.context.pendingDocument ?? status
  const tos: GoalMachineStatus[] = status === "active" ? ["completed", "paused", "abandoned"] : ["active", "completed", "abandoned"]
  const back: GoalMachineStatus[] = state.context.pendingDocument === null ? [] : [status]
  return [...tos, ...back].filter((to) => to !== holds).map((to): GoalEvent => ({ type: "goal.document.changed", status: to }))
}

/** goal_complete as the service's own run produces it: every check of the current revision, all passing or the last failing. */
function completions({ context }: Snapshot): GoalEvent[] {
  // The service's run counts as check activity (see goal.sut.ts): never offered where that could decide a no-progress pause.
  if (context.turnOpen && !hasActivity(context.activity)) return []
  const attested = context.contract.success.map((criterion) => ({ criterion, evidence: `${criterion} holds` }))
  const results = (failing: number[]) => context.contract.checks.map((_, i) => ({ item: i + 1, pass: !failing.includes(i + 1) }))
  const passing: GoalEvent = { type: "goal.complete", run: { revision: context.revision, results: results([]) }, attestations: attested }
  if (context.contract.checks.length === 0) return [passing]
  return [passing, { type: "goal.complete", run: { revision: context.revision, results: results([context.contract.checks.length]) }, attestations: attested }]
}

/** The debounce timer fires: at the deadline unless `now` says otherwise, with the session's facts at that moment. */
function due(
  state: Snapshot,
  facts: Partial<Omit<Extract<GoalEvent, { type: "loop.due" }>, "type" | "driver">> & { me?: string; holderAlive?: boolean } = {},
): GoalEvent {
  const { me = MODEL_DRIVER, holderAlive = true, ...rest } = facts
  const now = rest.now ?? state.context.dueAt ?? 0
  return {
    type: "loop.due",
    now,
    speaker: "forge",
    draftPlan: false,
    spend: state.context.spend,
    ...rest,
    // The goal's driver claim as the deciding process reads it: this process's own, renewed until well after now.
    driver: { me, claim: { holder: MODEL_DRIVER, until: now + DRIVER_CLAIM_MS }, holderAlive, now },
  }
}
/** The send fails: only where the loop's decision at the deadline would send the continuation brief. */
function failedSend(state: Snapshot): GoalEvent[] {
  const [after] = transition(goalMachine, state, due(state))
  const sends = after.matches({ active: "working" }) && after.context.turnsUsed === state.context.turnsUsed + 1
  return sends ? [{ type: "loop.failed", now: state.context.dueAt ?? 0, error: `the continuation brief could not be sent: ${SEND_FAILURE}` }] : []
}
/** When the time budget of the goal's arm runs out. */
const timeUp = ({ context }: Snapshot) => (context.armedAt ?? 0) + context.limits.maxMinutes * MINUTE

/**
 * The requests world: the user and the model ask (arm, pause, resume, revise, check, complete, discard) and the user
 * answers the dialogs (a late answer too: a dialog left open by a stop that won); the session never goes idle, so the
 * loop never decides (and its events on a goal that is not active are seen to change nothing). A finished goal is
 * asked everything once.
 */
function requests(state: Snapshot): GoalEvent[] {
  const { context } = state
  const status = goalStatusOf(state.value)
  const awaiting = state.hasTag("awaiting-user")
  if (state.status === "done")
    return [
      ...answers(state),
      arm(false),
      resume(false),
      pauseByUser,
      discardByUser,
      discardByModel,
      checkedAllPass,
      revise(state),
      ...completions(state).slice(0, 1),
    ]
  if (context.revision !== 1) {
    // The revision left no check: what the contract decides (arm, resume, complete), and the dialogs still to answer.
    if (awaiting) return answers(state)
    if (status === "queued") return [arm(false), discardByModel]
    if (status === "paused") return [resume(false), discardByModel]
    return [...completions(state), pauseByUser, discardByModel]
  }
  const dialogs = [...(awaiting || state.matches({ paused: "stopped" }) ? answers(state) : []), ...(awaiting ? takeovers : [])]
  const edits = documentEdits(state)
  if (status === "queued") return [...dialogs, arm(false), arm(true), revise(state), discardByUser, discardByModel, checkedAllPass, idle, ...edits]
  if (status === "paused")
    return [
      ...dialogs,
      resume(false),
      resume(true),
      revise(state),
      pauseByUser,
      discardByUser,
      discardByModel,
      checkedAllPass,
      ...completions(state).slice(0, 1),
      arm(false),
      idle,
      wrote,
      ...edits,
    ]
  const working = state.matches({ active: "working" }) ? takeovers : []
  return [
    ...dialogs,
    ...working,
    pauseByUser,
    pauseBlocked,
    revise(state),
    discardByUser,
    discardByModel,
    ...completions(state),
    resume(false),
    arm(false),
    ...edits,
  ]
}

/**
 * The loop world: the goal is armed at once, and from then on the session goes idle, the debounce deadline passes and
 * the loop decides, turn after turn, until a pause rule stops it. Every fact the decision reads (speaker, draft plan,
 * late timer, cost, tokens) and a failing send are tried on the first debounce; later turns follow the loop's own
 * road (a turn with and without activity, a foreign speaker mid-turn, the no-progress and turn-budget pauses, the
 * transport-failure pause), and the requests that compete with the loop (complete, discard, revise, pause) are tried
 * while it debounces or is parked. A budget pause is resumed with more budget once; other pauses end the path.
 */
function loop(state: Snapshot): GoalEvent[] {
  const { context } = state
  const { turnOpen, turnsUsed } = context
  const status = goalStatusOf(state.value)
  if (state.status === "done") return [allow(state), discardByUser]
  if (status === "queued") return state.matches({ queued: "arming" }) ? [allow(state)] : [arm(false)]
  const asBegun = isDeepStrictEqual(context.limits, limits)
  if (status === "paused") {
    if (state.matches({ paused: "resuming" })) return [allow(state), reject(state)]
    if (context.stopReason === "budget-turns") return asBegun ? [resume(false), resume(false, { addTurns: 1 })] : [resume(false)]
    if (context.stopReason === "budget-time") return [resume(false, {}, timeUp(state)), resume(false, { addMinutes: 30 }, timeUp(state))]
    return []
  }
  // A revised goal (no check left) or one resumed with more minutes is where its path ends.
  if (context.revision !== 1 || context.limits.maxMinutes !== limits.maxMinutes) return []
  if (state.matches({ active: "completing" }) || state.matches({ active: "discarding" })) return [allow(state), reject(state)]
  const fresh = asBegun && turnsUsed === 0 && context.transportFailures === 0 && context.lastTurn === null
  const competing = fresh ? [...completions(state), discardByModel, discardByUser, revise(state)] : []
  const didSomething = hasActivity(context.activity)
  if (state.matches({ active: "working" })) {
    // The first continuation turn does something (a write, or a check run) or nothing; only the write goes on.
    if (turnOpen && turnsUsed === 1 && !didSomething) return [idle, wrote, checkedAllPass]
    if (context.activity.checks > 0) return []
    // A job's wake due before the first idle is decided: the brief carries it (or the loop's exit sends it).
    return asBegun && turnsUsed === 0 && context.wakes.length === 0 ? [idle, wake] : [idle]
  }
  // Taken over while parked: the same debounce an idle starts (at the same moment, so the same state).
  if (state.matches({ active: "parked" })) return [idle, wake, ...takeovers, ...competing]
  if (fresh) {
    return [
      due(state),
      due(state, { now: (context.dueAt ?? 0) - 1 }),
      due(state, { speaker: "other" }),
      due(state, { draftPlan: true }),
      due(state, { now: timeUp(state) }),
      due(state, { spend: { cost: 1, tokens: 0 } }),
      due(state, { spend: { cost: 0, tokens: 1_000 } }),
      ...failedSend(state),
      busy,
      idle,
      ...(context.wakes.length === 0 ? [wake] : []),
      pauseByUser,
      ...competing,
    ]
  }
  if (turnsUsed === 0) return [due(state), ...failedSend(state)]
  if (turnOpen && turnsUsed === 1 && !didSomething) return [due(state), due(state, { speaker: "other" })]
  // Another opencode process decides the first turn's idle: it waits while this one holds the claim and lives, and
  // takes the claim over from a dead holder.
  if (turnOpen && turnsUsed === 1) return [due(state), due(state, { me: OTHER_DRIVER }), due(state, { me: OTHER_DRIVER, holderAlive: false })]
  return [due(state)]
}

/** The audit world's auditor sessions: one per audit, numbered from 1. */
const auditor = (round: number) => `ses_auditor_${round}`
const T_AUDIT = T0 + 5 * MINUTE
const auditTool = (session: string, tool: string): GoalEvent => ({ type: "goal.audit.tool", session, tool })
const finding = (session: string, line: number, severity: "bug" | "warning"): GoalEvent => ({
  type: "goal.review.write",
  session,
  finding: { file: "src/a.ts", line, severity, description: `a ${severity} at line ${line}`, scenario: null },
})
const deleted = (session: string, line: number): GoalEvent => ({ type: "goal.review.delete", session, file: "src/a.ts", line })
const auditFailed = (session: string | null): GoalEvent => ({ type: "goal.audit.failed", error: auditFailureText(session), now: T_AUDIT })

/**
 * The audit world: the goal is born with an audit and armed at once (the allow carries the workspace's snapshot), and
 * a verified completion goes to an auditor session. In the first audit its session opens (or cannot), its tools are
 * asked (a read, a write), it records a bug or a warning (a second one at the same place is refused), it deletes what
 * it recorded, and its turn ends (clean or dirty) or fails; a pause or a takeover leaves the audit another way. Only a
 * dirty first audit is followed by a second: an auditor of the first asks again and is refused, and the new one
 * deletes the bug and ends clean.
 */
function audits(state: Snapshot): GoalEvent[] {
  const audit = state.context.audit
  if (audit === null) throw new Error("the audit world's goal has an audit")
  const status = goalStatusOf(state.value)
  if (state.status === "done" || status === "paused") return []
  if (status === "queued")
    return state.matches({ queued: "arming" })
      ? [{ type: "dialog.allow", dialog: state.context.dialog, now: T_ALLOW, auditBase: FakeAuditWorkspace.BASE }]
      : [arm(false)]
  if (state.matches({ active: "completing" })) return [allow(state), reject(state)]
  const first = audit.rounds === 0
  const stale = audit.sessions.filter((s) => s !== audit.session).flatMap((s) => [auditTool(s, "read"), finding(s, 30, "bug")])
  if (!state.hasTag("auditing")) {
    if (!first) return audit.rounds === 1 && audit.last?.outcome === "dirty" ? [...completions(state), ...stale] : []
    // The first completion comes while the session works, while its idle is debounced, or while the loop is parked.
    if (state.matches({ active: "working" })) return [...completions(state), idle]
    if (state.matches({ active: "debouncing" })) return [...completions(state).slice(0, 1), due(state, { speaker: "other" })]
    return completions(state).slice(0, 1)
  }
  if (audit.session === null)
    return first
      ? [{ type: "goal.audit.opened", session: auditor(1) }, auditFailed(null), pauseByUser, ...takeovers]
      : [{ type: "goal.audit.opened", session: auditor(2) }]
  const session = audit.session
  const ends: GoalEvent[] = [{ type: "goal.audit.done", session, summary: "checked src/a.ts against the objective", now: T_AUDIT }]
  const placed = audit.findings[0]
  if (!first) return placed === undefined ? [...ends, ...stale] : [deleted(session, placed.line), ...stale]
  if (placed !== undefined) return [finding(session, placed.line, placed.severity), deleted(session, placed.line), ...ends]
  return [
    auditTool(session, "read"),
    auditTool(session, "forge_write"),
    // Asked only: an audit opens one session, and only its session's turn ends it.
    { type: "goal.audit.opened", session: auditor(9) },
    { type: "goal.audit.done", session: "ses_other", summary: "not the auditor", now: T_AUDIT },
    finding(session, 10, "bug"),
    finding(session, 20, "warning"),
    deleted(session, 10),
    ...ends,
    auditFailed(session),
    pauseByUser,
    ...takeovers,
  ]
}

const worlds: Record<string, { events: (state: Snapshot) => GoalEvent[]; key: (state: Snapshot) => string }> = {
  // Requests: only the revision (the contract) and the state decide what a request does; the rest is history.
  Requests: { events: requests, key: ({ value, context }) => JSON.stringify([value, context.revision, context.pendingDocument]) },
  // Loop: every counter the decision reads is context, so every state is its own.
  Loop: { events: loop, key: ({ value, context }) => JSON.stringify([value, context]) },
  // Audit: the audit and the dialog decide; the loop never runs.
  Audit: { events: audits, key: ({ value, context }) => JSON.stringify([value, context.audit, context.dialog]) },
  // Refused at birth: never created, so there is nothing to ask it.
  Refused: { events: () => [], key: ({ value }) => JSON.stringify(value) },
}
/** What a world offers, without the events that would open a dialog once the goal has opened MAX_DIALOGS. */
function withinDialogs(state: Snapshot, events: GoalEvent[]): GoalEvent[] {
  if (state.context.dialog < MAX_DIALOGS || state.hasTag("awaiting-user")) return events
  return events.filter((event) => !transition(goalMachine, state, event)[0].hasTag("awaiting-user"))
}
function worldOf(state: Snapshot) {
  const world = worlds[state.context.contract.objective]
  if (world === undefined) throw new Error(`no world for the goal "${state.context.contract.objective}"`)
  return world
}

describeModel({
  machine: goalMachine,
  configs: [
    { name: "requests", input: inputFor("Requests") },
    { name: "loop", input: inputFor("Loop") },
    { name: "audit: completion needs a clean audit too", input: { ...inputFor("Audit"), audit: true } },
    { name: "refused: arm asked beside the session's live goal", input: inputFor("Refused", refusedBirth) },
  ],
  events: (state) => withinDialogs(state, worldOf(state).events(state)),
  start: startGoalSut,
  extensionKey: (state) => worldOf(state).key(state),
})
