// The goal machine's continuation loop: the debounce after an idle session, the brief each due loop sends, the turns it
// ledgers, and every reason it stops by itself (no progress, a draft plan, the turn, time, cost and token budgets,
// failed sends), decided in the seed's order.
import { describe, expect, it } from "vitest"
import { GOAL_DEBOUNCE_MS, NO_ACTIVITY } from "../../../machines/goal/goal.gates"
import { MINUTE, T0, allow, limits } from "./goal.fixtures"
import {
  active,
  busy,
  checked,
  cycle,
  debouncing,
  due,
  effectsOf,
  expectRefused,
  failed,
  from,
  idle,
  parked,
  pause,
  resume,
  start,
  turns,
  wrote,
} from "./goal.machine.helpers"

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
    const resumed = from(retry, due(T0 + 2_000 + short), pause("user"), resume(), allow(2, T0 + 31 * MINUTE))
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
