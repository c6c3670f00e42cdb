// The goal machine's tags, state by state: what the services read to know a goal is live, driving, due or waiting on
// the user.
import { describe, expect, it } from "vitest"
import type { GoalTag } from "../../../machines/goal/goal.machine"
import { allow, arm } from "./goal.fixtures"
import { type Snapshot, active, completing, debouncing, discard, from, parked, pause, resume, run, start } from "./goal.machine.helpers"

const tagsOf = (snapshot: Snapshot): GoalTag[] => [...(snapshot.tags as Set<GoalTag>)].sort()

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
    ["completed", () => from(completing(), allow(2)), []],
    ["abandoned", () => run([discard("model"), allow(1)]), []],
  ]

  it.each(cases)("%s has its tags", (name, reach, tags) => {
    const snapshot = reach()
    const [status, child] = name.split(".")
    expect(snapshot.value).toEqual(child === undefined ? status : { [status as string]: child })
    expect(tagsOf(snapshot)).toEqual(tags)
  })
})
