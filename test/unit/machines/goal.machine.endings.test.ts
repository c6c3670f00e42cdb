// How a goal ends: a discard (the user's at once from any state, the model's through the user's dialog), and the
// finished states, completed and abandoned, which accept nothing more.
import { describe, expect, it } from "vitest"
import type { GoalEvent } from "../../../machines/goal/goal.machine"
import { T0, allow, arm, reject } from "./goal.fixtures"
import {
  type Snapshot,
  active,
  busy,
  checked,
  complete,
  completing,
  debouncing,
  discard,
  due,
  effectsOf,
  expectRefused,
  failed,
  from,
  idle,
  parked,
  pause,
  resume,
  revise,
  run,
  start,
  wrote,
} from "./goal.machine.helpers"

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
    expect(effectsOf(asking, allow(asking.context.dialog))).toEqual(["writeDocument:abandoned"])
    const gone = from(asking, allow(asking.context.dialog))
    expect(gone.value).toBe("abandoned")
    expect(gone.context.reason).toBe("wrong goal")
    const back = { queued: "waiting", active: "working", paused: "stopped" }[status]
    expect(from(asking, reject(asking.context.dialog)).value).toEqual({ [status]: back })
  })

  it.each(dialogStates)("the model's discard from %s is refused: one dialog at a time", (_name, reach) => {
    expectRefused(reach(), discard("model"))
  })
})

describe("a finished goal", () => {
  const finished: Array<[string, () => Snapshot]> = [
    ["completed", () => from(completing(), allow(2))],
    ["abandoned", () => run([discard("model"), allow(1)])],
  ]

  it.each(finished)("%s is final and accepts nothing", (name, reach) => {
    const done = reach()
    expect(done.value).toBe(name)
    expect(done.status).toBe("done")
    const events: GoalEvent[] = [
      arm,
      resume(),
      allow(done.context.dialog),
      reject(done.context.dialog),
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
