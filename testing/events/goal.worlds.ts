import { isDeepStrictEqual } from "node:util"
import { hasActivity } from "../../machines/goal/goal.gates"
import type { GoalEvent } from "../../machines/goal/goal.machine"
import { goalStatusOf } from "../../machines/goal/goal.status"
import {
  type GoalSamples,
  type GoalSnapshot,
  OTHER_DRIVER,
  T_ALLOW,
  allow,
  answers,
  busy,
  checkedAllPass,
  completions,
  discardByModel,
  discardByUser,
  documentEdits,
  idle,
  limits,
  pauseBlocked,
  pauseByUser,
  reject,
  revise,
  timeUp,
  wake,
  wrote,
} from "./goal.samples"

// The goal's model worlds, each a config told apart by the goal's objective (which a revision keeps): what its actors
// can produce, state by state, the service's own results included (goal_complete's run is the checks the contract
// has, for the revision it has; a failing send only where the loop would send). Each keeps its paths few: where a
// world stops offering events is said in it.

/**
 * The requests world: the user and the model ask (arm, pause, resume, revise, check, complete, discard) and the user
 * answers the dialogs (a late answer too: a dialog left open by a stop that won); the session never goes idle, so the
 * loop never decides (and its events on a goal that is not active are seen to change nothing). A finished goal is
 * asked everything once.
 */
export function requests(k: GoalSamples, state: GoalSnapshot): GoalEvent[] {
  const { context } = state
  const status = goalStatusOf(state.value)
  const awaiting = state.hasTag("awaiting-user")
  if (state.status === "done")
    return [
      ...answers(state),
      k.arm(false),
      k.resume(false),
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
    if (status === "queued") return [k.arm(false), discardByModel]
    if (status === "paused") return [k.resume(false), discardByModel]
    return [...completions(state), pauseByUser, discardByModel]
  }
  const dialogs = [...(awaiting || state.matches({ paused: "stopped" }) ? answers(state) : []), ...(awaiting ? k.takeovers : [])]
  const edits = documentEdits(state)
  if (status === "queued") return [...dialogs, k.arm(false), k.arm(true), revise(state), discardByUser, discardByModel, checkedAllPass, idle, ...edits]
  if (status === "paused")
    return [
      ...dialogs,
      k.resume(false),
      k.resume(true),
      revise(state),
      pauseByUser,
      discardByUser,
      discardByModel,
      checkedAllPass,
      ...completions(state).slice(0, 1),
      k.arm(false),
      idle,
      wrote,
      ...edits,
    ]
  const working = state.matches({ active: "working" }) ? k.takeovers : []
  return [
    ...dialogs,
    ...working,
    pauseByUser,
    pauseBlocked,
    revise(state),
    discardByUser,
    discardByModel,
    ...completions(state),
    k.resume(false),
    k.arm(false),
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
export function loop(k: GoalSamples, state: GoalSnapshot): GoalEvent[] {
  const { context } = state
  const { turnOpen, turnsUsed } = context
  const status = goalStatusOf(state.value)
  if (state.status === "done") return [allow(state), discardByUser]
  if (status === "queued") return state.matches({ queued: "arming" }) ? [allow(state)] : [k.arm(false)]
  const asBegun = isDeepStrictEqual(context.limits, limits)
  if (status === "paused") {
    if (state.matches({ paused: "resuming" })) return [allow(state), reject(state)]
    if (context.stopReason === "budget-turns") return asBegun ? [k.resume(false), k.resume(false, { addTurns: 1 })] : [k.resume(false)]
    if (context.stopReason === "budget-time") return [k.resume(false, {}, timeUp(state)), k.resume(false, { addMinutes: 30 }, timeUp(state))]
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
  if (state.matches({ active: "parked" })) return [idle, wake, ...k.takeovers, ...competing]
  if (fresh) {
    return [
      k.due(state),
      k.due(state, { now: (context.dueAt ?? 0) - 1 }),
      k.due(state, { speaker: "other" }),
      k.due(state, { draftPlan: true }),
      k.due(state, { now: timeUp(state) }),
      k.due(state, { spend: { cost: 1, tokens: 0 } }),
      k.due(state, { spend: { cost: 0, tokens: 1_000 } }),
      ...k.failedSend(state),
      busy,
      idle,
      ...(context.wakes.length === 0 ? [wake] : []),
      pauseByUser,
      ...competing,
    ]
  }
  if (turnsUsed === 0) return [k.due(state), ...k.failedSend(state)]
  if (turnOpen && turnsUsed === 1 && !didSomething) return [k.due(state), k.due(state, { speaker: "other" })]
  // Another opencode process decides the first turn's idle: it waits while this one holds the claim and lives, and
  // takes the claim over from a dead holder.
  if (turnOpen && turnsUsed === 1) return [k.due(state), k.due(state, { me: OTHER_DRIVER }), k.due(state, { me: OTHER_DRIVER, holderAlive: false })]
  return [k.due(state)]
}

/**
 * The audit world: the goal is born with an audit and armed at once (the allow carries the workspace's snapshot), and
 * a verified completion goes to an auditor session. In the first audit its session opens (or cannot), its tools are
 * asked (a read, a write), it records a bug or a warning (a second one at the same place is refused), it deletes what
 * it recorded, and its turn ends (clean or dirty) or fails; a pause or a takeover leaves the audit another way. Only a
 * dirty first audit is followed by a second: an auditor of the first asks again and is refused, and the new one
 * deletes the bug and ends clean.
 */
export function audits(k: GoalSamples, state: GoalSnapshot): GoalEvent[] {
  const audit = state.context.audit
  if (audit === null) throw new Error("the audit world's goal has an audit")
  const status = goalStatusOf(state.value)
  if (state.status === "done" || status === "paused") return []
  if (status === "queued")
    return state.matches({ queued: "arming" }) ? [{ type: "dialog.allow", dialog: state.context.dialog, now: T_ALLOW, auditBase: k.auditBase }] : [k.arm(false)]
  if (state.matches({ active: "completing" })) return [allow(state), reject(state)]
  const first = audit.rounds === 0
  const stale = audit.sessions.filter((s) => s !== audit.session).flatMap((s) => [k.auditTool(s, "read"), k.finding(s, 30, "bug")])
  if (!state.hasTag("auditing")) {
    if (!first) return audit.rounds === 1 && audit.last?.outcome === "dirty" ? [...completions(state), ...stale] : []
    // The first completion comes while the session works, while its idle is debounced, or while the loop is parked.
    if (state.matches({ active: "working" })) return [...completions(state), idle]
    if (state.matches({ active: "debouncing" })) return [...completions(state).slice(0, 1), k.due(state, { speaker: "other" })]
    return completions(state).slice(0, 1)
  }
  if (audit.session === null)
    return first
      ? [{ type: "goal.audit.opened", session: k.auditor(1) }, k.auditFailed(null), pauseByUser, ...k.takeovers]
      : [{ type: "goal.audit.opened", session: k.auditor(2) }]
  const session = audit.session
  const ends: GoalEvent[] = [k.auditDone(session, "checked src/a.ts against the objective")]
  const placed = audit.findings[0]
  if (!first) return placed === undefined ? [...ends, ...stale] : [k.deleted(session, placed.line), ...stale]
  if (placed !== undefined) return [k.finding(session, placed.line, placed.severity), k.deleted(session, placed.line), ...ends]
  return [
    k.auditTool(session, "read"),
    k.auditTool(session, "forge_write"),
    // Asked only: an audit opens one session, and only its session's turn ends it.
    { type: "goal.audit.opened", session: k.auditor(9) },
    k.auditDone("ses_other", "not the auditor"),
    k.finding(session, 10, "bug"),
    k.finding(session, 20, "warning"),
    k.deleted(session, 10),
    ...ends,
    k.auditFailed(session),
    pauseByUser,
    ...k.takeovers,
  ]
}
