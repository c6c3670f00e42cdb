import { describe, expect, it } from "vitest"
import { type SnapshotFrom, getNextSnapshot, initialTransition, transition } from "xstate"
import {
  type Attestation,
  type CheckLogLine,
  type CheckRun,
  GOAL_DEBOUNCE_MS,
  GOAL_MAX_MINUTES_CEILING,
  GOAL_MAX_TURNS_CEILING,
  type GoalLimits,
  NO_ACTIVITY,
  isUserGatedGoalDocumentStatus,
} from "../../../machines/goal.gates"
import { type GoalEvent, type GoalTag, goalMachine } from "../../../machines/goal.machine"
import { explainGoalRefusal, pendingGoalDocumentNote } from "../../../machines/goal.refusals"
import { stateToString } from "../../../machines/state.text"
import type { DriverFacts } from "../../../machines/driver.claim"
import { MINUTE, type Overrides, T0, allow, arm, input, inputWith, limits, reject, terms } from "./goal.fixtures"

// The goal machine alone, through pure transitions. The placeholders are provided as no-ops: a pure transition only
// lists the effects it asks for (checked below as "writeDocument:armed", "sendBrief", …), it never runs them.
const machine = goalMachine.provide({ actions: { writeDocument: () => {}, sendBrief: () => {}, sendWrapUp: () => {} } })

type Snapshot = SnapshotFrom<typeof goalMachine>
type LoopFacts = Partial<Omit<Extract<GoalEvent, { type: "loop.due" }>, "type" | "now">>

const idle = (now: number): GoalEvent => ({ type: "session.idle", now })
/** The driver claim as process `me` read it: by default its own, live. */
const claimed = (me: string, holder: string | null, holderAlive: boolean, until = T0 + 60 * MINUTE): DriverFacts => ({
  me,
  claim: holder === null ? null : { holder, until },
  holderAlive,
  now: 0,
})
const busy: GoalEvent = { type: "session.busy" }
const due = (now: number, facts: LoopFacts = {}): GoalEvent => ({
  type: "loop.due",
  now,
  speaker: "forge",
  draftPlan: false,
  spend: { cost: 0, tokens: 0 },
  ...facts,
  driver: { ...(facts.driver ?? claimed("p1", "p1", true)), now },
})
const failed = (now: number): GoalEvent => ({ type: "loop.failed", now, error: "ECONNRESET" })
const wrote: GoalEvent = { type: "goal.activity", kind: "writes" }
const checkLine: CheckLogLine = { at: "2023-11-14T22:14:00.000Z", run: "r1", revision: 1, item: 1, pass: true, ms: 120, label: "npm test", detail: "12 passed" }
const checked: GoalEvent = { type: "goal.checked", entries: [checkLine] }
const pause = (by: "user" | "model", blocker?: string): GoalEvent => (blocker === undefined ? { type: "goal.pause", by } : { type: "goal.pause", by, blocker })
const discard = (by: "user" | "model", reason?: string): GoalEvent =>
  reason === undefined ? { type: "goal.discard", by } : { type: "goal.discard", by, reason }
const resume = (fields: Partial<Omit<Extract<GoalEvent, { type: "goal.resume" }>, "type">> = {}): GoalEvent => ({
  type: "goal.resume",
  sessionId: "s3",
  draftPlan: false,
  now: T0 + 30 * MINUTE,
  addTurns: 0,
  addMinutes: 0,
  ...fields,
})
const revise = ({ checkCount = 3, ...fields }: { checkCount?: number; limits?: GoalLimits; document?: string } = {}): GoalEvent => ({
  type: "goal.revise",
  contract: terms(["Login works", "Suite is green", "Docs updated"], checkCount),
  limits: { ...limits, maxTurns: 20 },
  document: "# Goal: login (revised)",
  ...fields,
})
const allPass = (checkCount: number): CheckRun[] => Array.from({ length: checkCount }, (_, i) => ({ item: i + 1, pass: true }))
const attestations: Attestation[] = [
  { criterion: "Login works", evidence: "login.test.ts: 3 passed" },
  { criterion: "  suite IS   green ", evidence: "npm test: 12 passed" },
]
const complete = (fields: { revision?: number; results?: CheckRun[]; attestations?: Attestation[] } = {}): GoalEvent => ({
  type: "goal.complete",
  run: { revision: fields.revision ?? 1, results: fields.results ?? allPass(2) },
  attestations: fields.attestations ?? attestations,
})

/** Applies each event, asserting the machine accepts it. */
function from(snapshot: Snapshot, ...events: GoalEvent[]): Snapshot {
  let next = snapshot
  for (const event of events) {
    expect(next.can(event), `${event.type} from ${JSON.stringify(next.value)}`).toBe(true)
    next = getNextSnapshot(machine, next, event)
  }
  return next
}
const start = (overrides: Overrides = {}): Snapshot => initialTransition(machine, inputWith(overrides))[0]
const run = (events: GoalEvent[], overrides: Overrides = {}): Snapshot => from(start(overrides), ...events)

/**
 * The effects a step asks for, in order: "writeDocument:<change>" or the action's name. Context updates are not
 * listed, nor a release of held wakes when none is held (it sends nothing; the wake tests below list it).
 */
function effectsOf(snapshot: Snapshot, event: GoalEvent): string[] {
  const [, actions] = transition(machine, snapshot, event)
  const sendsSomething = (action: (typeof actions)[number]) => action.type !== "releaseWakes" || (action.info.context as Snapshot["context"]).wakes.length > 0
  return actions.filter(sendsSomething).map((action) => {
    const change = (action.params as { change?: string } | undefined)?.change
    return change === undefined ? action.type : `${action.type}:${change}`
  })
}

/** The event is refused: `can` says no and neither the state nor the context moves. */
function expectRefused(snapshot: Snapshot, event: GoalEvent): void {
  expect(snapshot.can(event), `${event.type} from ${JSON.stringify(snapshot.value)}`).toBe(false)
  const next = getNextSnapshot(machine, snapshot, event)
  expect(next.value).toEqual(snapshot.value)
  expect(next.context).toEqual(snapshot.context)
}

const tagsOf = (snapshot: Snapshot): GoalTag[] => [...(snapshot.tags as Set<GoalTag>)].sort()

/** Armed at T0 by session s2. */
const active = (overrides: Overrides = {}): Snapshot => run([arm, allow(T0)], overrides)
/** One loop cycle: the session goes idle at `at` and the debounce deadline passes. */
const cycle = (snapshot: Snapshot, at: number, facts: LoopFacts = {}): Snapshot => from(snapshot, idle(at), due(at + GOAL_DEBOUNCE_MS, facts))
/** `n` continuation turns, each with a write, five seconds apart. */
function turns(snapshot: Snapshot, n: number): Snapshot {
  let next = snapshot
  for (let i = 0; i < n; i++) next = from(cycle(next, T0 + (i + 1) * 5_000), wrote)
  return next
}
const debouncing = (overrides: Overrides = {}) => from(active(overrides), idle(T0 + 1_000))
const parked = () => from(debouncing(), due(T0 + 1_000 + GOAL_DEBOUNCE_MS, { speaker: "other" }))
const completing = () => from(active(), complete())

describe("queued: a new goal", () => {
  it("starts queued.waiting with an empty loop, and its entry writes the document", () => {
    const [queued, actions] = initialTransition(machine, input)
    expect(queued.value).toEqual({ queued: "waiting" })
    expect(queued.context).toEqual({
      goalPath: input.goalPath,
      sessionId: "s1",
      contract: input.contract,
      limits,
      createdAt: T0 - MINUTE,
      debounceMs: GOAL_DEBOUNCE_MS,
      revision: 1,
      turnsUsed: 0,
      armedAt: null,
      stopReason: null,
      blocker: null,
      dueAt: null,
      turnOpen: false,
      activity: NO_ACTIVITY,
      idleStreak: 0,
      transportFailures: 0,
      lastTurn: null,
      spend: { cost: 0, tokens: 0 },
      pending: null,
      reason: null,
      wakes: [],
      pendingDocument: null,
    })
    expect(actions.map((a) => [a.type, a.params])).toEqual([["writeDocument", { change: "created" }]])
  })

  it("revisions bump the revision and replace the contract", () => {
    const queued = start()
    expect(effectsOf(queued, revise())).toEqual(["writeDocument:revised"])
    const revised = from(queued, revise(), revise({ checkCount: 1 }))
    expect(revised.value).toEqual({ queued: "waiting" })
    expect(revised.context).toMatchObject({ revision: 3, contract: terms(["Login works", "Suite is green", "Docs updated"], 1), limits: { maxTurns: 20 } })
  })

  it("a check run is written to the Check Log but is no loop activity before the goal is armed", () => {
    const queued = start()
    expect(effectsOf(queued, checked)).toEqual(["writeDocument:checked"])
    expect(from(queued, checked).context.activity).toEqual(NO_ACTIVITY)
  })
})

describe("arm gate", () => {
  it("refuses while the session has a draft plan", () => {
    expectRefused(start(), { ...arm, draftPlan: true })
  })

  it("refuses a contract with no check, until a revision adds one", () => {
    const unarmable = start({ checkCount: 0 })
    expectRefused(unarmable, arm)
    expect(from(unarmable, revise({ checkCount: 1 })).can(arm)).toBe(true)
  })

  it("opens the dialog, holding the arming session and the limits; no effect yet", () => {
    const queued = start()
    expect(effectsOf(queued, arm)).toEqual([])
    const arming = from(queued, arm)
    expect(arming.value).toEqual({ queued: "arming" })
    expect(arming.context.pending).toEqual({ sessionId: "s2", limits })
    expect(arming.context.sessionId).toBe("s1")
    expect(arming.context.armedAt).toBeNull()
  })

  it("dialog.allow arms it: active.working, bound to the arming session, the clock started", () => {
    const arming = run([arm])
    expect(effectsOf(arming, allow(T0))).toEqual(["writeDocument:armed"])
    const armed = from(arming, allow(T0))
    expect(armed.value).toEqual({ active: "working" })
    expect(armed.context).toMatchObject({ sessionId: "s2", armedAt: T0, pending: null, stopReason: null, turnsUsed: 0, dueAt: null, turnOpen: false })
  })

  it("dialog.reject leaves it queued as it was", () => {
    const rejected = run([arm, reject])
    expect(rejected.value).toEqual({ queued: "waiting" })
    expect(rejected.context).toEqual(start().context)
  })

  it("the dialog is the only road to active, and one dialog is open at a time", () => {
    expectRefused(start(), allow())
    const arming = run([arm])
    expectRefused(arming, arm)
    expectRefused(arming, revise())
    expectRefused(arming, discard("model"))
  })
})

describe("the continuation loop", () => {
  it("an idle session starts the debounce: dueAt = now + 2000, and another idle moves it", () => {
    const armed = active()
    expect(effectsOf(armed, idle(T0 + 1_000))).toEqual([])
    const waiting = from(armed, idle(T0 + 1_000))
    expect(waiting.value).toEqual({ active: "debouncing" })
    expect(waiting.context.dueAt).toBe(T0 + 1_000 + GOAL_DEBOUNCE_MS)
    expect(from(waiting, idle(T0 + 1_500)).context.dueAt).toBe(T0 + 1_500 + GOAL_DEBOUNCE_MS)
  })

  it("loop.due before dueAt is refused; at dueAt it is taken", () => {
    const waiting = debouncing()
    const dueAt = T0 + 1_000 + GOAL_DEBOUNCE_MS
    expectRefused(waiting, due(T0 + 1_000))
    expectRefused(waiting, due(dueAt - 1))
    expect(waiting.can(due(dueAt))).toBe(true)
    expectRefused(active(), due(dueAt))
  })

  it("a goal born with its own debounce keeps it, and every idle and failed send is debounced by it", () => {
    const short = 300
    expect(start({ debounceMs: short }).context.debounceMs).toBe(short)
    const waiting = debouncing({ debounceMs: short })
    expect(waiting.context.dueAt).toBe(T0 + 1_000 + short)
    expectRefused(waiting, due(T0 + 1_000 + short - 1))
    expect(waiting.can(due(T0 + 1_000 + short))).toBe(true)
    expect(from(waiting, idle(T0 + 1_500)).context.dueAt).toBe(T0 + 1_500 + short)
    const retry = from(waiting, failed(T0 + 2_000))
    expect(retry.context).toMatchObject({ transportFailures: 1, dueAt: T0 + 2_000 + short, debounceMs: short })
    // The loop's own steps never change it: after a sent brief, a pause and a resume it is still the goal's.
    const resumed = from(retry, due(T0 + 2_000 + short), pause("user"), resume(), allow(T0 + 31 * MINUTE))
    expect(resumed.context.debounceMs).toBe(short)
    expect(from(resumed, idle(T0 + 32 * MINUTE)).context.dueAt).toBe(T0 + 32 * MINUTE + short)
  })

  it("a busy session cancels the debounce", () => {
    const working = from(debouncing(), busy)
    expect(working.value).toEqual({ active: "working" })
    expect(working.context.dueAt).toBeNull()
    expectRefused(working, due(T0 + 1_000 + GOAL_DEBOUNCE_MS))
  })

  it("a non-forge speaker parks the loop and ledgers the open turn; the next idle looks again", () => {
    const turn1 = cycle(active(), T0 + 1_000)
    const waiting = from(turn1, { type: "goal.activity", kind: "shell" }, idle(T0 + 5_000))
    expect(effectsOf(waiting, due(T0 + 7_000, { speaker: "other" }))).toEqual(["writeDocument:ledgered"])
    const held = from(waiting, due(T0 + 7_000, { speaker: "other" }))
    expect(held.value).toEqual({ active: "parked" })
    expect(held.context).toMatchObject({ dueAt: null, turnsUsed: 1, turnOpen: false, idleStreak: 0, activity: NO_ACTIVITY })
    expect(held.context.lastTurn).toEqual({ turn: 1, activity: { ...NO_ACTIVITY, shell: 1 } })
    expectRefused(held, due(T0 + 9_000))
    const again = from(held, idle(T0 + 8_000))
    expect(again.value).toEqual({ active: "debouncing" })
    expect(again.context.dueAt).toBe(T0 + 10_000)
  })

  it("a due loop sends the brief: a new open turn, the spend recorded", () => {
    const waiting = debouncing()
    const event = due(T0 + 3_000, { spend: { cost: 0.25, tokens: 1_200 } })
    expect(effectsOf(waiting, event)).toEqual(["writeDocument:continued", "sendBrief"])
    const turn1 = from(waiting, event)
    expect(turn1.value).toEqual({ active: "working" })
    expect(turn1.context).toMatchObject({
      turnsUsed: 1,
      turnOpen: true,
      dueAt: null,
      activity: NO_ACTIVITY,
      spend: { cost: 0.25, tokens: 1_200 },
      lastTurn: null,
    })
  })

  it("activity during the turn is counted, and the next cycle ledgers the turn with a zero streak", () => {
    const turn1 = cycle(active(), T0 + 1_000)
    const busyTurn = from(turn1, wrote, wrote, { type: "goal.activity", kind: "ticks" }, checked)
    expect(busyTurn.context.activity).toEqual({ writes: 2, shell: 0, checks: 1, ticks: 1 })
    expect(effectsOf(turn1, checked)).toEqual(["writeDocument:checked"])
    const turn2 = cycle(busyTurn, T0 + 10_000)
    expect(turn2.context).toMatchObject({ turnsUsed: 2, turnOpen: true, idleStreak: 0, activity: NO_ACTIVITY })
    expect(turn2.context.lastTurn).toEqual({ turn: 1, activity: { writes: 2, shell: 0, checks: 1, ticks: 1 } })
  })

  it("two continuation turns in a row without activity pause the goal: no-progress, with a wrap-up", () => {
    const turn1 = cycle(active(), T0 + 1_000)
    const turn2 = cycle(turn1, T0 + 10_000)
    expect(turn2.value).toEqual({ active: "working" })
    expect(turn2.context).toMatchObject({ turnsUsed: 2, idleStreak: 1, lastTurn: { turn: 1, activity: NO_ACTIVITY } })
    const waiting = from(turn2, idle(T0 + 20_000))
    const event = due(T0 + 22_000, { spend: { cost: 1, tokens: 10 } })
    expect(effectsOf(waiting, event)).toEqual(["writeDocument:paused", "sendWrapUp"])
    const stopped = from(waiting, event)
    expect(stopped.value).toEqual({ paused: "stopped" })
    expect(stopped.context).toMatchObject({
      stopReason: "no-progress",
      blocker: null,
      dueAt: null,
      turnsUsed: 2,
      turnOpen: false,
      idleStreak: 2,
      lastTurn: { turn: 2, activity: NO_ACTIVITY },
      spend: { cost: 1, tokens: 10 },
    })
  })

  it("a turn with activity breaks the no-progress streak", () => {
    const turn2 = cycle(cycle(active(), T0 + 1_000), T0 + 10_000)
    const turn3 = cycle(from(turn2, wrote), T0 + 20_000)
    expect(turn3.value).toEqual({ active: "working" })
    expect(turn3.context.idleStreak).toBe(0)
  })

  it("the user's own turns never count toward no-progress: only a turn the loop opened is ledgered", () => {
    // Idle, busy (the user typed), idle again: no continuation turn was open, so no streak grows.
    const armed = from(active(), idle(T0 + 1_000), busy, idle(T0 + 5_000), busy)
    expect(armed.context).toMatchObject({ idleStreak: 0, lastTurn: null, turnsUsed: 0 })
    expect(cycle(armed, T0 + 10_000).value).toEqual({ active: "working" })
  })

  it("a draft plan in the session pauses it: draft-conflict, without a wrap-up", () => {
    const waiting = from(cycle(active(), T0 + 1_000), wrote, idle(T0 + 10_000))
    const event = due(T0 + 12_000, { draftPlan: true })
    expect(effectsOf(waiting, event)).toEqual(["writeDocument:paused"])
    const stopped = from(waiting, event)
    expect(stopped.value).toEqual({ paused: "stopped" })
    expect(stopped.context).toMatchObject({ stopReason: "draft-conflict", turnsUsed: 1, lastTurn: { turn: 1 } })
  })

  it("the turn budget: the turn after the last one allowed pauses with budget-turns", () => {
    const last = turns(active({ limits: { ...limits, maxTurns: 2 } }), 2)
    expect(last.context.turnsUsed).toBe(2)
    const waiting = from(last, idle(T0 + 10 * MINUTE))
    expect(effectsOf(waiting, due(T0 + 10 * MINUTE + GOAL_DEBOUNCE_MS))).toEqual(["writeDocument:paused", "sendWrapUp"])
    const stopped = from(waiting, due(T0 + 10 * MINUTE + GOAL_DEBOUNCE_MS))
    expect(stopped.value).toEqual({ paused: "stopped" })
    expect(stopped.context).toMatchObject({ stopReason: "budget-turns", turnsUsed: 2, turnOpen: false, lastTurn: { turn: 2 } })
  })

  it("the time budget: armedAt + maxMinutes * 60000 is spent, one millisecond less is not", () => {
    const deadline = T0 + limits.maxMinutes * MINUTE
    const before = cycle(active(), deadline - 1 - GOAL_DEBOUNCE_MS)
    expect(before.value).toEqual({ active: "working" })
    const waiting = from(active(), idle(deadline - GOAL_DEBOUNCE_MS))
    expect(effectsOf(waiting, due(deadline))).toEqual(["writeDocument:paused", "sendWrapUp"])
    const stopped = from(waiting, due(deadline))
    expect(stopped.value).toEqual({ paused: "stopped" })
    expect(stopped.context.stopReason).toBe("budget-time")
    expect(stopped.context.armedAt).toBe(T0)
  })

  it("the cost budget: reached spend pauses with budget-cost; maxCost null is unlimited", () => {
    const capped = active({ limits: { ...limits, maxCost: 1.5 } })
    expect(cycle(capped, T0 + 1_000, { spend: { cost: 1.49, tokens: 0 } }).value).toEqual({ active: "working" })
    const stopped = cycle(capped, T0 + 1_000, { spend: { cost: 1.5, tokens: 0 } })
    expect(stopped.value).toEqual({ paused: "stopped" })
    expect(stopped.context).toMatchObject({ stopReason: "budget-cost", spend: { cost: 1.5, tokens: 0 } })
    expect(cycle(active(), T0 + 1_000, { spend: { cost: 1e9, tokens: 0 } }).value).toEqual({ active: "working" })
  })

  it("the token budget: reached spend pauses with budget-tokens; maxTokens null is unlimited", () => {
    const capped = active({ limits: { ...limits, maxTokens: 50_000 } })
    expect(cycle(capped, T0 + 1_000, { spend: { cost: 0, tokens: 49_999 } }).value).toEqual({ active: "working" })
    const stopped = cycle(capped, T0 + 1_000, { spend: { cost: 0, tokens: 50_000 } })
    expect(stopped.value).toEqual({ paused: "stopped" })
    expect(stopped.context).toMatchObject({ stopReason: "budget-tokens", spend: { cost: 0, tokens: 50_000 } })
    expect(cycle(active(), T0 + 1_000, { spend: { cost: 0, tokens: 1e12 } }).value).toEqual({ active: "working" })
  })

  it("decides in the seed's order: speaker, no-progress, draft plan, then the budgets", () => {
    const spent = { cost: 100, tokens: 1e9 }
    const everything = { ...limits, maxTurns: 2, maxCost: 1, maxTokens: 1 }
    const idleTurn2 = cycle(cycle(active({ limits: everything }), T0 + 1_000), T0 + 10_000)
    const late = T0 + 2 * limits.maxMinutes * MINUTE
    const waiting = from(idleTurn2, idle(late))
    const at = late + GOAL_DEBOUNCE_MS
    expect(from(waiting, due(at, { speaker: "other", draftPlan: true, spend: spent })).value).toEqual({ active: "parked" })
    expect(from(waiting, due(at, { draftPlan: true, spend: spent })).context.stopReason).toBe("no-progress")
    const active2 = from(idleTurn2, wrote, idle(late))
    expect(from(active2, due(at, { draftPlan: true, spend: spent })).context.stopReason).toBe("draft-conflict")
    expect(from(active2, due(at, { spend: spent })).context.stopReason).toBe("budget-turns")
  })

  it("a failed send retries after a new debounce twice; the third failure pauses with transport-failures", () => {
    const waiting = debouncing()
    expect(effectsOf(waiting, failed(T0 + 3_000))).toEqual(["writeDocument:ledgered"])
    const once = from(waiting, failed(T0 + 3_000))
    expect(once.value).toEqual({ active: "debouncing" })
    expect(once.context).toMatchObject({ transportFailures: 1, dueAt: T0 + 3_000 + GOAL_DEBOUNCE_MS })
    expectRefused(once, due(T0 + 4_999))
    const twice = from(once, failed(T0 + 5_000))
    expect(twice.value).toEqual({ active: "debouncing" })
    expect(twice.context).toMatchObject({ transportFailures: 2, dueAt: T0 + 7_000 })
    expect(effectsOf(twice, failed(T0 + 7_000))).toEqual(["writeDocument:paused"])
    const stopped = from(twice, failed(T0 + 7_000))
    expect(stopped.value).toEqual({ paused: "stopped" })
    expect(stopped.context).toMatchObject({ stopReason: "transport-failures", transportFailures: 3, dueAt: null })
  })

  it("a sent brief resets the failure count", () => {
    const sent = from(debouncing(), failed(T0 + 3_000), failed(T0 + 5_000), due(T0 + 7_000))
    expect(sent.value).toEqual({ active: "working" })
    expect(sent.context.transportFailures).toBe(0)
  })

  it("loop.failed means nothing outside the debounce", () => {
    expectRefused(active(), failed(T0))
    expectRefused(parked(), failed(T0))
  })
})

describe("pause", () => {
  const loopStates: Array<[string, () => Snapshot]> = [
    ["working", () => active()],
    ["debouncing", debouncing],
    ["parked", parked],
    ["completing", completing],
  ]

  it.each(loopStates)("from active.%s: the model's pause with a blocker records it", (name, reach) => {
    const before = reach()
    expect(before.value).toEqual({ active: name })
    expect(effectsOf(before, pause("model", "need the staging API key"))).toEqual(["writeDocument:paused"])
    const stopped = from(before, pause("model", "  need the staging API key \n"))
    expect(stopped.value).toEqual({ paused: "stopped" })
    expect(stopped.context).toMatchObject({ stopReason: "blocker", blocker: "need the staging API key", dueAt: null })
  })

  it.each(loopStates)("from active.%s: a pause without a blocker is the user's", (_name, reach) => {
    for (const event of [pause("user"), pause("model"), pause("model", "   ")]) {
      const stopped = from(reach(), event)
      expect(stopped.value).toEqual({ paused: "stopped" })
      expect(stopped.context).toMatchObject({ stopReason: "user", blocker: null, dueAt: null })
    }
  })

  it("only an active goal is paused", () => {
    expectRefused(start(), pause("user"))
    expectRefused(from(active(), pause("user")), pause("model", "x"))
  })
})

describe("resume gate", () => {
  const pausedByTurns = (maxTurns = 1) => {
    const last = turns(active({ limits: { ...limits, maxTurns } }), maxTurns)
    return cycle(last, T0 + (maxTurns + 1) * 5_000)
  }

  it("refuses a spent turn budget unless turns are added", () => {
    const stopped = pausedByTurns()
    expect(stopped.context).toMatchObject({ stopReason: "budget-turns", turnsUsed: 1 })
    expectRefused(stopped, resume())
    expectRefused(stopped, resume({ addMinutes: 30 }))
    const resuming = from(stopped, resume({ addTurns: 5 }))
    expect(resuming.value).toEqual({ paused: "resuming" })
    expect(resuming.context.pending).toEqual({ sessionId: "s3", limits: { ...limits, maxTurns: 6 } })
  })

  it("caps the turns at 200, so a goal that spent 200 turns cannot resume", () => {
    expect(from(pausedByTurns(), resume({ addTurns: 1_000 })).context.pending?.limits.maxTurns).toBe(GOAL_MAX_TURNS_CEILING)
    const exhausted = pausedByTurns(GOAL_MAX_TURNS_CEILING)
    expect(exhausted.context).toMatchObject({ stopReason: "budget-turns", turnsUsed: GOAL_MAX_TURNS_CEILING })
    expectRefused(exhausted, resume({ addTurns: 1 }))
  })

  it("refuses a spent time budget unless minutes are added, capped at 480", () => {
    const stopped = from(active(), pause("user"))
    const late = T0 + limits.maxMinutes * MINUTE
    expectRefused(stopped, resume({ now: late }))
    expect(stopped.can(resume({ now: late - 1 }))).toBe(true)
    expect(from(stopped, resume({ now: late, addMinutes: 1 })).context.pending?.limits.maxMinutes).toBe(limits.maxMinutes + 1)
    expect(from(stopped, resume({ now: late, addMinutes: 10_000 })).context.pending?.limits.maxMinutes).toBe(GOAL_MAX_MINUTES_CEILING)
    expectRefused(stopped, resume({ now: T0 + GOAL_MAX_MINUTES_CEILING * MINUTE, addMinutes: 10_000 }))
  })

  it("refuses while the session has a draft plan, and without a check", () => {
    const stopped = from(active(), pause("user"))
    expectRefused(stopped, resume({ draftPlan: true }))
    expectRefused(from(stopped, revise({ checkCount: 0 })), resume())
  })

  it("resume → resuming → allow: active again, the stop cleared, the arm time and the turns kept", () => {
    const stopped = from(turns(active(), 1), pause("model", "blocked"))
    const resuming = from(stopped, resume({ addTurns: 3, addMinutes: 15 }))
    expect(resuming.hasTag("awaiting-user")).toBe(true)
    expect(effectsOf(resuming, allow(T0 + 40 * MINUTE))).toEqual(["writeDocument:resumed"])
    const resumed = from(resuming, allow(T0 + 40 * MINUTE))
    expect(resumed.value).toEqual({ active: "working" })
    expect(resumed.context).toMatchObject({
      stopReason: null,
      blocker: null,
      armedAt: T0,
      sessionId: "s3",
      turnsUsed: 1,
      pending: null,
      limits: { ...limits, maxTurns: 13, maxMinutes: 75 },
      idleStreak: 0,
      transportFailures: 0,
      turnOpen: false,
    })
  })

  it("a no-progress pause resumes with a fresh streak", () => {
    const stopped = cycle(cycle(cycle(active(), T0 + 1_000), T0 + 10_000), T0 + 20_000)
    expect(stopped.context).toMatchObject({ stopReason: "no-progress", idleStreak: 2 })
    const resumed = from(stopped, resume(), allow(T0 + 30 * MINUTE))
    expect(resumed.context.idleStreak).toBe(0)
    expect(cycle(cycle(resumed, T0 + 31 * MINUTE), T0 + 32 * MINUTE).value).toEqual({ active: "working" })
  })

  it("dialog.reject keeps it paused as it was", () => {
    const stopped = from(active(), pause("model", "blocked"))
    const rejected = from(stopped, resume(), reject)
    expect(rejected.value).toEqual({ paused: "stopped" })
    expect(rejected.context).toEqual(stopped.context)
  })

  it("only a paused goal is resumed", () => {
    expectRefused(start(), resume())
    expectRefused(active(), resume())
    expectRefused(from(active(), pause("user"), resume()), resume())
  })
})

describe("completion gate", () => {
  it("accepts every check passed for this revision and one attestation per criterion, then waits on the dialog", () => {
    const working = active()
    expect(effectsOf(working, complete())).toEqual([])
    const confirming = from(working, complete())
    expect(confirming.value).toEqual({ active: "completing" })
    expect(effectsOf(confirming, allow(T0 + MINUTE))).toEqual(["writeDocument:completed"])
    const done = from(confirming, allow(T0 + MINUTE))
    expect(done.value).toBe("completed")
    expect(done.status).toBe("done")
    expect(from(confirming, reject).value).toEqual({ active: "working" })
  })

  it("accepts from the debounce (clearing the deadline) and from parked", () => {
    const fromDebounce = from(debouncing(), complete())
    expect(fromDebounce.value).toEqual({ active: "completing" })
    expect(fromDebounce.context.dueAt).toBeNull()
    expect(from(parked(), complete()).value).toEqual({ active: "completing" })
  })

  it("refuses a run for another revision", () => {
    const working = active()
    expectRefused(working, complete({ revision: 2 }))
    const revised = from(working, revise())
    expect(revised.context.revision).toBe(2)
    expectRefused(revised, complete({ revision: 1, results: allPass(3), attestations: [...attestations, { criterion: "Docs updated", evidence: "README" }] }))
    expect(
      revised.can(complete({ revision: 2, results: allPass(3), attestations: [...attestations, { criterion: "Docs updated", evidence: "README" }] })),
    ).toBe(true)
  })

  it("refuses a failed or missing check", () => {
    const working = active()
    expectRefused(
      working,
      complete({
        results: [
          { item: 1, pass: true },
          { item: 2, pass: false },
        ],
      }),
    )
    expectRefused(working, complete({ results: [{ item: 1, pass: true }] }))
    expectRefused(
      working,
      complete({
        results: [
          { item: 1, pass: true },
          { item: 3, pass: true },
        ],
      }),
    )
  })

  it("refuses a criterion without an attestation with evidence, one attested twice, and a stranger", () => {
    const working = active()
    const [login, green] = attestations as [Attestation, Attestation]
    for (const given of [
      [login],
      [login, { ...green, evidence: "  " }],
      [login, green, { ...login, evidence: "again" }],
      [login, green, { criterion: "Fast", evidence: "x" }],
    ]) {
      expectRefused(working, complete({ attestations: given }))
    }
  })

  it("only an active goal completes, and only once it is asked", () => {
    expectRefused(start(), complete())
    expectRefused(from(active(), pause("user")), complete())
    expectRefused(completing(), complete())
  })
})

describe("revisions", () => {
  it("bump the revision in every state that is not a dialog; in the debounce they return to working", () => {
    for (const reach of [start, active, parked, () => from(active(), pause("user"))]) {
      const before = reach()
      expect(effectsOf(before, revise())).toEqual(["writeDocument:revised"])
      const after = from(before, revise())
      expect(after.value).toEqual(before.value)
      expect(after.context).toMatchObject({ revision: 2, contract: { checks: terms([], 3).checks }, limits: { maxTurns: 20 } })
    }
    const revised = from(debouncing(), revise())
    expect(revised.value).toEqual({ active: "working" })
    expect(revised.context).toMatchObject({ revision: 2, dueAt: null })
  })

  it("wait while a dialog is open", () => {
    for (const open of [run([arm]), completing(), from(active(), pause("user"), resume())]) expectRefused(open, revise())
  })
})

describe("discard", () => {
  const liveStates: Array<[string, () => Snapshot]> = [
    ["queued.waiting", start],
    ["active.working", active],
    ["active.debouncing", debouncing],
    ["active.parked", parked],
    ["paused.stopped", () => from(active(), pause("user"))],
  ]
  const dialogStates: Array<[string, () => Snapshot]> = [
    ["queued.arming", () => run([arm])],
    ["queued.discarding", () => run([discard("model")])],
    ["active.completing", completing],
    ["active.discarding", () => from(active(), discard("model"))],
    ["paused.resuming", () => from(active(), pause("user"), resume())],
    ["paused.discarding", () => from(active(), pause("user"), discard("model"))],
  ]

  it.each(liveStates)("the user's discard from %s is immediate", (_name, reach) => {
    const before = reach()
    const gone = from(before, discard("user", "not needed"))
    expect(gone.value).toBe("abandoned")
    expect(gone.status).toBe("done")
    expect(effectsOf(before, discard("user", "not needed"))).toEqual(["writeDocument:abandoned"])
    expect(gone.context).toMatchObject({ reason: "not needed", pending: null, dueAt: null })
  })

  it.each(dialogStates)("the user's discard from %s is immediate, even with a dialog open", (_name, reach) => {
    const gone = from(reach(), discard("user"))
    expect(gone.value).toBe("abandoned")
    expect(gone.context).toMatchObject({ reason: null, pending: null })
  })

  it.each(liveStates)("the model's discard from %s waits on the user's dialog", (name, reach) => {
    const before = reach()
    expect(effectsOf(before, discard("model", "wrong goal"))).toEqual([])
    const asking = from(before, discard("model", "wrong goal"))
    const [status] = name.split(".") as [string]
    expect(asking.value).toEqual({ [status]: "discarding" })
    expect(asking.hasTag("awaiting-user")).toBe(true)
    expect(asking.context.dueAt).toBeNull()
    expect(effectsOf(asking, allow())).toEqual(["writeDocument:abandoned"])
    const gone = from(asking, allow())
    expect(gone.value).toBe("abandoned")
    expect(gone.context.reason).toBe("wrong goal")
    const back = { queued: "waiting", active: "working", paused: "stopped" }[status]
    expect(from(asking, reject).value).toEqual({ [status]: back })
  })

  it.each(dialogStates)("the model's discard from %s is refused: one dialog at a time", (_name, reach) => {
    expectRefused(reach(), discard("model"))
  })
})

describe("a finished goal", () => {
  const finished: Array<[string, () => Snapshot]> = [
    ["completed", () => from(completing(), allow())],
    ["abandoned", () => run([discard("model"), allow()])],
  ]

  it.each(finished)("%s is final and accepts nothing", (name, reach) => {
    const done = reach()
    expect(done.value).toBe(name)
    expect(done.status).toBe("done")
    const events: GoalEvent[] = [
      arm,
      resume(),
      allow(),
      reject,
      revise(),
      pause("user"),
      discard("user"),
      discard("model"),
      complete(),
      wrote,
      idle(T0),
      busy,
      due(T0),
      failed(T0),
    ]
    for (const event of events) expectRefused(done, event)
  })

  it.each(finished)("%s takes no check run: its Check Log is not written again", (_name, reach) => {
    const done = reach()
    expect(effectsOf(done, checked)).toEqual([])
    expectRefused(done, checked)
  })
})

describe("tags", () => {
  const cases: Array<[string, () => Snapshot, GoalTag[]]> = [
    ["queued.waiting", start, []],
    ["queued.arming", () => run([arm]), ["awaiting-user"]],
    ["queued.discarding", () => run([discard("model")]), ["awaiting-user"]],
    ["active.working", active, ["driving", "live"]],
    ["active.debouncing", debouncing, ["driving", "due", "live"]],
    ["active.parked", parked, ["driving", "live"]],
    ["active.completing", completing, ["awaiting-user", "driving", "live"]],
    ["active.discarding", () => from(active(), discard("model")), ["awaiting-user", "driving", "live"]],
    ["paused.stopped", () => from(active(), pause("user")), ["live"]],
    ["paused.resuming", () => from(active(), pause("user"), resume()), ["awaiting-user", "live"]],
    ["paused.discarding", () => from(active(), pause("user"), discard("model")), ["awaiting-user", "live"]],
    ["completed", () => from(completing(), allow()), []],
    ["abandoned", () => run([discard("model"), allow()]), []],
  ]

  it.each(cases)("%s has its tags", (name, reach, tags) => {
    const snapshot = reach()
    const [status, child] = name.split(".")
    expect(snapshot.value).toEqual(child === undefined ? status : { [status as string]: child })
    expect(tagsOf(snapshot)).toEqual(tags)
  })
})

describe("the driver claim: one driver across opencode processes", () => {
  const waiting = () => from(cycle(active(), T0 + 1_000), wrote, idle(T0 + 10_000))

  it("the claim's holder decides; another process's decision is refused while the holder lives and its claim runs", () => {
    expect(from(waiting(), due(T0 + 12_000)).context.turnsUsed).toBe(2)
    expectRefused(waiting(), due(T0 + 12_000, { driver: claimed("p2", "p1", true) }))
  })

  it("a dead holder's goal, a lapsed claim and an unclaimed goal are decided by whoever asks", () => {
    expect(from(waiting(), due(T0 + 12_000, { driver: claimed("p2", "p1", false) })).context.turnsUsed).toBe(2)
    expect(from(waiting(), due(T0 + 12_000, { driver: claimed("p2", "p1", true, T0 + 11_000) })).context.turnsUsed).toBe(2)
    expect(from(waiting(), due(T0 + 12_000, { driver: claimed("p2", null, false) })).context.turnsUsed).toBe(2)
  })

  const restored = (driver: DriverFacts, now = T0 + 20_000): GoalEvent => ({ type: "goal.restored", driver: { ...driver, now }, now })
  const live = claimed("p2", "p1", true)
  const taken = [claimed("p2", "p1", false), claimed("p2", "p1", true, T0), claimed("p2", null, false)]

  it("a process taking over closes a dialog that died with its process, as a rejection would; a live holder's dialog stays", () => {
    const dialogs: [string, Snapshot, string][] = [
      ["arming", run([arm]), "queued.waiting"],
      ["queued discard", run([discard("model")]), "queued.waiting"],
      ["completing", completing(), "active.working"],
      ["active discard", from(active(), discard("model")), "active.working"],
      ["resuming", from(active(), pause("user"), resume()), "paused.stopped"],
      ["paused discard", from(active(), pause("user"), discard("model")), "paused.stopped"],
    ]
    for (const [name, dialog, closed] of dialogs) {
      expect(dialog.hasTag("awaiting-user"), name).toBe(true)
      expectRefused(dialog, restored(live))
      for (const driver of taken) {
        const after = from(dialog, restored(driver))
        expect(stateToString(after.value), name).toBe(closed)
        expect(after.context.pending, name).toBeNull()
        expect(effectsOf(dialog, restored(driver)), name).toEqual([])
      }
    }
  })

  it("a working or parked goal taken over decides after a debounce, as after an idle; elsewhere a takeover changes nothing", () => {
    for (const driver of taken) {
      for (const goal of [active(), parked()]) {
        const after = from(goal, restored(driver))
        expect(after.value).toEqual({ active: "debouncing" })
        expect(after.context.dueAt).toBe(T0 + 20_000 + GOAL_DEBOUNCE_MS)
      }
      expectRefused(debouncing(), restored(driver))
      expectRefused(from(active(), pause("user")), restored(driver))
      expectRefused(start(), restored(driver))
    }
    expectRefused(active(), restored(live))
    expect(explainGoalRefusal(active(), restored(live))).toContain("driven by another opencode process (p1)")
  })
})

describe("job wakes ride with the brief", () => {
  const wake = (text: string): GoalEvent => ({ type: "job.wake", text })
  const waiting = () => from(active(), idle(T0 + 1_000))

  it("a wake due on the goal's idle is held, and the brief that follows carries it: one prompt for the idle", () => {
    const held = from(waiting(), wake("[forge:job-complete] job_1"), wake("[forge:job-complete] job_2"))
    expect(held.context.wakes).toEqual(["[forge:job-complete] job_1", "[forge:job-complete] job_2"])
    const event = due(T0 + 3_000)
    expect(effectsOf(held, event)).toEqual(["writeDocument:continued", "sendBrief"])
    const [after, actions] = transition(machine, held, event)
    const brief = actions.find((a) => a.type === "sendBrief")
    expect((brief?.info.context as Snapshot["context"] | undefined)?.wakes).toHaveLength(2)
    expect(after.context.wakes).toEqual([])
  })

  it("is held in working too (the idle that follows decides), and refused where no brief follows", () => {
    expect(from(active(), wake("w")).context.wakes).toEqual(["w"])
    const parked = from(waiting(), due(T0 + 3_000, { speaker: "other" }))
    expectRefused(parked, wake("w"))
    expectRefused(from(active(), pause("user")), wake("w"))
  })

  it("wakes held when no brief follows go out on their own: the loop parks, or the goal stops", () => {
    const held = from(waiting(), wake("w"))
    expect(effectsOf(held, due(T0 + 3_000, { speaker: "other" }))).toEqual(["writeDocument:ledgered", "releaseWakes"])
    expect(from(held, due(T0 + 3_000, { speaker: "other" })).context.wakes).toEqual([])
    expect(effectsOf(held, pause("user"))).toEqual(["releaseWakes", "writeDocument:paused"])
    expect(effectsOf(held, due(T0 + 3_000, { draftPlan: true }))).toEqual(["releaseWakes", "writeDocument:paused"])
    expect(from(held, pause("user")).context.wakes).toEqual([])
  })
})

describe("resuming a goal paused for its cost or token budget", () => {
  const withBudgets = () => active({ limits: { ...limits, maxCost: 1, maxTokens: 1_000 } })
  const pausedFor = (spend: { cost: number; tokens: number }) => cycle(withBudgets(), T0 + 1_000, { spend })

  it("is refused until the resume adds to the spent budget; the addition lands in the limits", () => {
    const byCost = from(withBudgets(), idle(T0 + 1_000), due(T0 + 3_000, { spend: { cost: 1.5, tokens: 10 } }))
    expect(byCost.context.stopReason).toBe("budget-cost")
    expectRefused(byCost, resume())
    expectRefused(byCost, resume({ addCost: 0.25 }))
    expect(from(byCost, resume({ addCost: 1 })).context.pending?.limits).toMatchObject({ maxCost: 2, maxTokens: 1_000 })
    const byTokens = pausedFor({ cost: 0, tokens: 1_200 })
    expect(byTokens.context.stopReason).toBe("budget-tokens")
    expectRefused(byTokens, resume({ addTurns: 5 }))
    expect(from(byTokens, resume({ addTokens: 500 })).context.pending?.limits.maxTokens).toBe(1_500)
  })

  it("adds nothing to a budget the goal does not have", () => {
    const unlimited = from(active(), pause("user"))
    expect(from(unlimited, resume({ addCost: 5, addTokens: 5 })).context.pending?.limits).toMatchObject({ maxCost: null, maxTokens: null })
  })
})

describe("document direction (issue 23 §1b)", () => {
  const said = (status: "queued" | "active" | "paused" | "completed" | "abandoned"): GoalEvent => ({ type: "goal.document.changed", status })

  it("only completion, arming and resuming are user-gated", () => {
    const all = ["queued", "active", "paused", "completed", "abandoned"] as const
    const gated = all.flatMap((from) => all.filter((to) => isUserGatedGoalDocumentStatus(from, to)).map((to) => `${from}->${to}`))
    expect(gated.sort()).toEqual(
      ["abandoned->completed", "active->completed", "paused->active", "paused->completed", "queued->active", "queued->completed"].sort(),
    )
  })

  it("an active goal holds completed, is paused at once by paused, and drops a held status when the document agrees again", () => {
    const held = from(active(), said("completed"))
    expect(held.value).toEqual({ active: "working" })
    expect(held.context.pendingDocument).toBe("completed")
    expect(pendingGoalDocumentNote(held)).toContain("/goal confirm, which goes through the completion dialog")
    expect(from(held, said("active")).context.pendingDocument).toBeNull()
    const paused = from(held, said("paused"))
    expect(paused.value).toEqual({ paused: "stopped" })
    expect(paused.context).toMatchObject({ stopReason: "user", pendingDocument: null })
  })

  it("a paused goal holds active until the resume dialog, which drops it", () => {
    const held = from(active(), pause("user"), said("active"))
    expect(held.value).toEqual({ paused: "stopped" })
    expect(held.context.pendingDocument).toBe("active")
    expect(pendingGoalDocumentNote(held)).toContain("the resume dialog (goal_resume)")
  })
})
