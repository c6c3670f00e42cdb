// A goal's birth gate: one live goal per session, so a write that asks to arm its goal beside the session's live goal
// is refused at birth (nothing written: no effect is asked); every other birth is queued as before, its document
// written once. The refusal keeps the words the service used to say it with.
import { describe, expect, it } from "vitest"
import { initialTransition } from "xstate"
import { isArmBlockedByLiveGoal } from "../../../machines/goal/goal.gates"
import type { GoalBirthFacts } from "../../../machines/goal/goal.machine"
import { explainGoalBirthRefusal } from "../../../machines/goal/goal.refusals"
import { goalStatusOf } from "../../../machines/goal/goal.status"
import { arm, inputWith } from "./goal.fixtures"
import { machine } from "./goal.machine.helpers"

const LIVE = ".opencode/goal/2026-11-29-ship-it.md"
const liveActive: GoalBirthFacts["liveGoal"] = { path: LIVE, status: "active" }
const livePaused: GoalBirthFacts["liveGoal"] = { path: LIVE, status: "paused" }
const born = (birth: GoalBirthFacts) => initialTransition(machine, inputWith({ birth }))

describe("isArmBlockedByLiveGoal", () => {
  it.each([
    [{ armAsked: true, liveGoal: liveActive }, true],
    [{ armAsked: true, liveGoal: livePaused }, true],
    [{ armAsked: true, liveGoal: null }, false],
    [{ armAsked: false, liveGoal: liveActive }, false],
    [{ armAsked: false, liveGoal: null }, false],
  ] satisfies [GoalBirthFacts, boolean][])("%j refuses: %s", (birth, refused) => {
    expect(isArmBlockedByLiveGoal(birth)).toBe(refused)
  })

  it("never refuses a restored record's missing facts", () => {
    expect(isArmBlockedByLiveGoal(null)).toBe(false)
  })
})

describe("birth", () => {
  it.each([
    ["an arm asked while the session holds no live goal", { armAsked: true, liveGoal: null }],
    ["a queued write beside the session's live goal", { armAsked: false, liveGoal: livePaused }],
    ["a queued write in a free session", { armAsked: false, liveGoal: null }],
  ] satisfies [string, GoalBirthFacts][])("queues %s: its document written once, the facts kept", (_, birth) => {
    const [snapshot, actions] = born(birth)
    expect(snapshot.value).toEqual({ queued: "waiting" })
    expect(snapshot.status).toBe("active")
    expect(goalStatusOf(snapshot.value)).toBe("queued")
    expect(snapshot.context.birth).toEqual(birth)
    expect(actions.map((a) => [a.type, a.params])).toEqual([["writeDocument", { change: "created" }]])
    // The arm is its own step, after the birth.
    expect(snapshot.can(arm)).toBe(true)
  })

  it.each([livePaused, liveActive])("refuses an arm asked beside the session's live goal (%j): nothing is written", (liveGoal) => {
    const [snapshot, actions] = born({ armAsked: true, liveGoal })
    expect(snapshot.value).toBe("refused")
    expect(snapshot.status).toBe("done")
    expect(snapshot.hasTag("live")).toBe(false)
    expect(actions.filter((a) => a.type === "writeDocument")).toEqual([])
    expect(snapshot.can(arm)).toBe(false)
  })

  it("says why in the words the service used: the live goal, its status, and the ways past it", () => {
    const [refused] = born({ armAsked: true, liveGoal: livePaused })
    expect(explainGoalBirthRefusal(refused)).toBe(
      `this session already has a live goal: ${LIVE} (paused). Revise it with goal_write revise=true, finish it, or discard it (/goal discard); goal_write arm=false queues a new goal instead.`,
    )
    // Never created, so nothing shows it; a status asked of it anyway is that of a goal that never went on.
    expect(goalStatusOf(refused.value)).toBe("abandoned")
  })
})
