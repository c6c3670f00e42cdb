// The goal machine from its birth to armed: a new goal waits queued (revisions and check runs land in its document),
// and the arm gate opens the user's dialog only for a contract that can be checked and a session without a draft plan.
import { describe, expect, it } from "vitest"
import { initialTransition } from "xstate"
import { GOAL_DEBOUNCE_MS, NO_ACTIVITY } from "../../../machines/goal/goal.gates"
import { MINUTE, T0, allow, arm, input, limits, reject, terms } from "./goal.fixtures"
import { checked, discard, effectsOf, expectRefused, from, machine, revise, run, start } from "./goal.machine.helpers"

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
      birth: { armAsked: false, liveGoal: null },
      dialog: 0,
      audit: null,
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
    expect(effectsOf(arming, allow(1, T0))).toEqual(["writeDocument:armed"])
    const armed = from(arming, allow(1, T0))
    expect(armed.value).toEqual({ active: "working" })
    expect(armed.context).toMatchObject({ sessionId: "s2", armedAt: T0, pending: null, stopReason: null, turnsUsed: 0, dueAt: null, turnOpen: false })
  })

  it("dialog.reject leaves it queued as it was", () => {
    const rejected = run([arm, reject(1)])
    expect(rejected.value).toEqual({ queued: "waiting" })
    expect(rejected.context, "only the dialog it answered is counted").toEqual({ ...start().context, dialog: 1 })
  })

  it("the dialog is the only road to active, and one dialog is open at a time", () => {
    expectRefused(start(), allow(0))
    const arming = run([arm])
    expectRefused(arming, arm)
    expectRefused(arming, revise())
    expectRefused(arming, discard("model"))
  })
})
