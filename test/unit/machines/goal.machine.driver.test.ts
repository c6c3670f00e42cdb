// The driver claim: one opencode process drives a goal; another decides only once the holder is dead or its claim has
// lapsed, and a takeover closes a dialog that died with its process and restarts the loop after a debounce.
import { describe, expect, it } from "vitest"
import type { DriverFacts } from "../../../machines/driver.claim"
import { GOAL_DEBOUNCE_MS } from "../../../machines/goal/goal.gates"
import type { GoalEvent } from "../../../machines/goal/goal.machine"
import { explainGoalRefusal } from "../../../machines/goal/goal.refusals"
import { stateToString } from "../../../machines/state.text"
import { T0, arm } from "./goal.fixtures"
import {
  type Snapshot,
  active,
  claimed,
  completing,
  cycle,
  debouncing,
  discard,
  due,
  effectsOf,
  expectRefused,
  from,
  idle,
  parked,
  pause,
  resume,
  run,
  start,
  wrote,
} from "./goal.machine.helpers"

describe("the driver claim: one driver across opencode processes", () => {
  const waiting = () => from(cycle(active(), T0 + 1_000), wrote, idle(T0 + 10_000))

  it("the claim's holder decides; another process's decision is refused while the holder lives and its claim runs", () => {
    expect(from(waiting(), due(T0 + 12_000)).context.turnsUsed).toBe(2)
    expectRefused(waiting(), due(T0 + 12_000, { driver: claimed("p2", "p1", true) }))
  })

  it("a dead holder's goal, a lapsed claim and an unclaimed goal are decided by whoever asks", () => {
    expect(from(waiting(), due(T0 + 12_000, { driver: claimed("p2", "p1", false) })).context.turnsUsed).toBe(2)
    expect(from(waiting(), due(T0 + 12_000, { driver: claimed("p2", "p1", true, T0 + 11_000) })).context.turnsUsed).toBe(2)
    expect(from(waiting(), due(T0 + 12_000, { driver: claimed("p2", null, false) })).context.turnsUsed).toBe(2)
  })

  const restored = (driver: DriverFacts, now = T0 + 20_000): GoalEvent => ({ type: "goal.restored", driver: { ...driver, now }, now })
  const live = claimed("p2", "p1", true)
  const taken = [claimed("p2", "p1", false), claimed("p2", "p1", true, T0), claimed("p2", null, false)]

  it("a process taking over closes a dialog that died with its process, as a rejection would; a live holder's dialog stays", () => {
    const dialogs: [string, Snapshot, string][] = [
      ["arming", run([arm]), "queued.waiting"],
      ["queued discard", run([discard("model")]), "queued.waiting"],
      ["completing", completing(), "active.working"],
      ["active discard", from(active(), discard("model")), "active.working"],
      ["resuming", from(active(), pause("user"), resume()), "paused.stopped"],
      ["paused discard", from(active(), pause("user"), discard("model")), "paused.stopped"],
    ]
    for (const [name, dialog, closed] of dialogs) {
      expect(dialog.hasTag("awaiting-user"), name).toBe(true)
      expectRefused(dialog, restored(live))
      for (const driver of taken) {
        const after = from(dialog, restored(driver))
        expect(stateToString(after.value), name).toBe(closed)
        expect(after.context.pending, name).toBeNull()
        expect(effectsOf(dialog, restored(driver)), name).toEqual([])
      }
    }
  })

  it("a working or parked goal taken over decides after a debounce, as after an idle; elsewhere a takeover changes nothing", () => {
    for (const driver of taken) {
      for (const goal of [active(), parked()]) {
        const after = from(goal, restored(driver))
        expect(after.value).toEqual({ active: "debouncing" })
        expect(after.context.dueAt).toBe(T0 + 20_000 + GOAL_DEBOUNCE_MS)
      }
      expectRefused(debouncing(), restored(driver))
      expectRefused(from(active(), pause("user")), restored(driver))
      expectRefused(start(), restored(driver))
    }
    expectRefused(active(), restored(live))
    expect(explainGoalRefusal(active(), restored(live))).toContain("driven by another opencode process (p1)")
  })
})
