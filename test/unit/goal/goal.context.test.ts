import { describe, expect, it } from "vitest"
import { initialTransition, transition } from "xstate"
import { GOAL_DEBOUNCE_MS } from "../../../machines/goal/goal.gates"
import { GOAL_MACHINE_VERSION, goalMachine } from "../../../machines/goal/goal.machine"
import { goalContextProblem, upgradeGoalRecord } from "../../../services/goal/goal.context"
import { arm, input } from "../machines/goal.fixtures"

// Goal records written before a goal carried its own debounce have none in their context. They must come back fit
// for the machine, debounced as they were then; a record that has one keeps it.

/** A persisted context as this version writes it, and the same context as an older Forge wrote it. */
const current = initialTransition(goalMachine, { ...input, debounceMs: 300 })[0].context
const { debounceMs: _debounceMs, ...older } = current

describe("upgradeGoalRecord", () => {
  it("gives a record without a debounce the default, fit for the machine", () => {
    expect(goalContextProblem(older)).toMatch(/debounceMs/)
    const upgraded = upgradeGoalRecord({ value: { active: "debouncing" }, context: older }, GOAL_MACHINE_VERSION)
    expect(upgraded).toEqual({ value: { active: "debouncing" }, context: { ...older, debounceMs: GOAL_DEBOUNCE_MS } })
    expect(goalContextProblem(upgraded.context)).toBeNull()
  })

  it("leaves a record with a debounce as it is (a bad one is still the context check's to refuse)", () => {
    const persisted = { value: { active: "working" }, context: current }
    expect(upgradeGoalRecord(persisted, GOAL_MACHINE_VERSION)).toBe(persisted)
    const broken = { value: { active: "working" }, context: { ...current, debounceMs: -1 } }
    expect(goalContextProblem(upgradeGoalRecord(broken, GOAL_MACHINE_VERSION).context)).toMatch(/debounceMs/)
  })

  it("gives a record written before document changes were held nothing pending (issue 23 §1b)", () => {
    const { pendingDocument: _pending, ...beforeHeld } = current
    expect(goalContextProblem(beforeHeld)).toMatch(/pendingDocument/)
    const upgraded = upgradeGoalRecord({ value: { active: "working" }, context: beforeHeld }, GOAL_MACHINE_VERSION)
    expect(upgraded.context).toEqual({ ...beforeHeld, pendingDocument: null })
    expect(goalContextProblem(upgraded.context)).toBeNull()
  })

  it("gives a record written before the birth gate's facts were kept none (null: past its birth), as an additive field", () => {
    const { birth: _birth, ...beforeBirth } = current
    expect(goalContextProblem(beforeBirth)).toMatch(/birth/)
    const upgraded = upgradeGoalRecord({ value: { paused: "stopped" }, context: beforeBirth }, GOAL_MACHINE_VERSION)
    expect(upgraded).toEqual({ value: { paused: "stopped" }, context: { ...beforeBirth, birth: null } })
    expect(goalContextProblem(upgraded.context)).toBeNull()
    // A record with its facts keeps them; facts that do not fit are still the context check's to refuse.
    const kept = { ...current, birth: { armAsked: true, liveGoal: null } }
    expect(upgradeGoalRecord({ value: { queued: "waiting" }, context: kept }, GOAL_MACHINE_VERSION).context).toBe(kept)
    expect(goalContextProblem({ ...current, birth: { armAsked: true, liveGoal: { path: "g.md", status: "queued" } } })).toMatch(/birth/)
  })

  it("gives a record written before dialogs were numbered none counted (0), as an additive field; its next dialog is 1", () => {
    const { dialog: _dialog, ...beforeNumbered } = current
    expect(goalContextProblem(beforeNumbered)).toMatch(/dialog/)
    const upgraded = upgradeGoalRecord({ value: { queued: "waiting" }, context: beforeNumbered }, GOAL_MACHINE_VERSION)
    expect(upgraded).toEqual({ value: { queued: "waiting" }, context: { ...beforeNumbered, dialog: 0 } })
    expect(goalContextProblem(upgraded.context)).toBeNull()
    const restored = goalMachine.resolveState({ value: { queued: "waiting" }, context: upgraded.context as typeof current })
    const [arming] = transition(goalMachine, restored, arm)
    expect(arming.context.dialog, "the first dialog it opens").toBe(1)
    expect(goalContextProblem({ ...current, dialog: -1 })).toMatch(/dialog/)
  })

  it("refuses another version and a context that is no object, as before", () => {
    expect(() => upgradeGoalRecord({ value: "paused", context: older }, "0")).toThrow("no upgrade from goal machine version 0")
    expect(() => upgradeGoalRecord({ value: "paused", context: [] }, GOAL_MACHINE_VERSION)).toThrow("its context is not an object")
    expect(() => upgradeGoalRecord({ value: "paused", context: null }, GOAL_MACHINE_VERSION)).toThrow("its context is not an object")
  })
})
