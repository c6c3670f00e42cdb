// Pausing and resuming a goal: a pause from any loop state (the model's with a blocker), and the resume gate, which
// asks the user and refuses a spent turn, time, cost or token budget unless the resume adds to it.
import { describe, expect, it } from "vitest"
import { GOAL_MAX_MINUTES_CEILING, GOAL_MAX_TURNS_CEILING } from "../../../machines/goal/goal.gates"
import { MINUTE, T0, allow, limits, reject } from "./goal.fixtures"
import {
  type Snapshot,
  active,
  completing,
  cycle,
  debouncing,
  due,
  effectsOf,
  expectRefused,
  from,
  idle,
  parked,
  pause,
  resume,
  revise,
  start,
  turns,
} from "./goal.machine.helpers"

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
    expect(effectsOf(resuming, allow(2, T0 + 40 * MINUTE))).toEqual(["writeDocument:resumed"])
    const resumed = from(resuming, allow(2, T0 + 40 * MINUTE))
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
    const resumed = from(stopped, resume(), allow(2, T0 + 30 * MINUTE))
    expect(resumed.context.idleStreak).toBe(0)
    expect(cycle(cycle(resumed, T0 + 31 * MINUTE), T0 + 32 * MINUTE).value).toEqual({ active: "working" })
  })

  it("dialog.reject keeps it paused as it was", () => {
    const stopped = from(active(), pause("model", "blocked"))
    const rejected = from(stopped, resume(), reject(2))
    expect(rejected.value).toEqual({ paused: "stopped" })
    expect(rejected.context, "only the dialog it answered is counted").toEqual({ ...stopped.context, dialog: 2 })
  })

  it("only a paused goal is resumed", () => {
    expectRefused(start(), resume())
    expectRefused(active(), resume())
    expectRefused(from(active(), pause("user"), resume()), resume())
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
