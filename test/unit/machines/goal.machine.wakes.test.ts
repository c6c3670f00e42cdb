// Job wakes and the goal loop: a wake due on the goal's idle rides with the brief that follows; where no brief follows
// it is released on its own.
import { describe, expect, it } from "vitest"
import { transition } from "xstate"
import type { GoalEvent } from "../../../machines/goal/goal.machine"
import { T0 } from "./goal.fixtures"
import { type Snapshot, active, due, effectsOf, expectRefused, from, idle, machine, pause } from "./goal.machine.helpers"

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
