// The goal document driving the machine: revisions of the contract (in every state but a dialog), and a status written
// into the document, which pauses at once but is held for the user's dialog where it would arm, resume or complete.
import { describe, expect, it } from "vitest"
import { isUserGatedGoalDocumentStatus } from "../../../machines/goal/goal.gates"
import type { GoalEvent } from "../../../machines/goal/goal.machine"
import { pendingGoalDocumentNote } from "../../../machines/goal/goal.refusals"
import { arm, terms } from "./goal.fixtures"
import { active, completing, debouncing, effectsOf, expectRefused, from, parked, pause, resume, revise, run, start } from "./goal.machine.helpers"

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
