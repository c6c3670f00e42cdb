// The goal's dialogs are numbered (machines/dialog.gates.ts): every entry into a dialog state opens a new one, and an
// answer moves the goal only for the dialog open now. An answer to one that has since closed — the goal left the
// dialog state and came back to it — is refused with the stale-answer text and changes nothing.
import { describe, expect, it } from "vitest"
import type { GoalEvent } from "../../../machines/goal/goal.machine"
import { explainGoalRefusal } from "../../../machines/goal/goal.refusals"
import { T0, allow, arm, input, reject } from "./goal.fixtures"
import { type Snapshot, active, claimed, complete, discard, expectRefused, from, pause, resume, start } from "./goal.machine.helpers"

const goal = input.goalPath
/** A process taking the goal over from one that ended: the dialog it showed closes unanswered. */
const takeOver: GoalEvent = { type: "goal.restored", now: T0, driver: claimed("p2", "p1", false) }

/** Each dialog state, the state before it and the event that enters it. */
const dialogStates: Array<[string, () => Snapshot, GoalEvent]> = [
  ["queued.arming", start, arm],
  ["queued.discarding", start, discard("model")],
  ["active.completing", active, complete()],
  ["active.discarding", active, discard("model")],
  ["paused.resuming", () => from(active(), pause("user")), resume()],
  ["paused.discarding", () => from(active(), pause("user")), discard("model")],
]

describe("dialogs", () => {
  it("a goal is born with no dialog opened", () => {
    expect(start().context.dialog).toBe(0)
  })

  it.each(dialogStates)("entering %s opens a new dialog; its answer is taken, one to an older dialog is refused", (name, before, enter) => {
    const was = before()
    const asking = from(was, enter)
    expect(asking.hasTag("awaiting-user"), name).toBe(true)
    const open = was.context.dialog + 1
    expect(asking.context.dialog, "one more than the last dialog opened").toBe(open)
    expect(asking.can(allow(open))).toBe(true)
    expect(asking.can(reject(open))).toBe(true)
    for (const stale of [allow(open - 1), reject(open - 1), allow(open + 1)]) {
      expectRefused(asking, stale)
      expect(explainGoalRefusal(asking, stale)).toMatch(/^answer refused: it is for dialog \d+ of goal /)
    }
  })

  it("two dialogs in the same state are told apart: the first one's answer is refused once the second is open", () => {
    const first = from(start(), arm)
    const second = from(first, reject(1), arm)
    expect(second.value).toEqual(first.value)
    expect(second.context.dialog).toBe(2)
    expectRefused(second, allow(1))
    expect(explainGoalRefusal(second, allow(1))).toBe(
      `answer refused: it is for dialog 1 of goal ${goal}, which closed while it was open (dialog 2 was opened since; goal ${goal} is queued now: another command, or another opencode process on this workspace, moved it). This answer changes nothing. Ask again if it still matters.`,
    )
    expect(from(second, allow(2)).value).toEqual({ active: "working" })
  })

  it("a dialog closed by a takeover, then asked again, takes only the new dialog's answer", () => {
    const asked = from(active(), complete())
    expect(asked.context.dialog).toBe(2)
    const again = from(asked, takeOver, complete())
    expect(again.value).toEqual({ active: "completing" })
    expectRefused(again, reject(2))
    expect(explainGoalRefusal(again, reject(2))).toMatch(/^answer refused: it is for dialog 2 of goal .*\(dialog 3 was opened since; goal .* is active now/)
    expect(from(again, allow(3)).value).toBe("completed")
  })

  it("an answer naming a dialog the goal never opened is refused as well", () => {
    const asking = from(start(), arm)
    expect(explainGoalRefusal(asking, allow(5))).toBe(
      `answer refused: it is for dialog 5 of goal ${goal}, which closed while it was open (it holds no such dialog; goal ${goal} is queued now: another command, or another opencode process on this workspace, moved it). This answer changes nothing. Ask again if it still matters.`,
    )
  })

  it("outside a dialog state an answer keeps today's text, whatever dialog it names", () => {
    const armed = from(start(), arm, allow(1))
    expect(explainGoalRefusal(armed, allow(1))).toBe(`goal ${goal} is not waiting on a user dialog (it is active.working).`)
  })
})
