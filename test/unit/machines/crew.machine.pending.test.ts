// What a pending crew can do: it holds the dispatch belt until it is armed (at once under a goal, through the user's
// dialog without one), or it is converted to a goal.
import { describe, expect, it } from "vitest"
import { transition } from "xstate"
import { crewMachine } from "../../../machines/crew/crew.machine"
import {
  CREW,
  allow,
  arm,
  arming,
  changes,
  closing,
  convert,
  dispatch,
  executing,
  executingAbandoning,
  pending,
  pendingAbandoning,
  refusal,
  reject,
  run,
} from "./crew.machine.helpers"

describe("the pending belt (crew.dispatch is asked, never sent)", () => {
  it("refuses while pending, dialogs included, and names the three choices and the way out", () => {
    for (const snapshot of [pending(), arming(), pendingAbandoning()]) {
      const text = refusal(snapshot, dispatch)
      expect(text).toMatch(/^crew pending belt: /)
      expect(text).toContain(CREW)
      expect(text).toContain('execution "waves"')
      expect(text).toContain('execution "goal"')
      expect(text).toContain("standby")
      expect(text).toContain("crew_close with abandon: true")
    }
  })

  it("permits while executing (dialogs included), as a transition that changes nothing but emits", () => {
    for (const snapshot of [executing(), closing(), executingAbandoning(), run([], true)]) {
      expect(snapshot.can(dispatch)).toBe(true)
      const [after, actions] = transition(crewMachine, snapshot, dispatch)
      expect(after.value).toEqual(snapshot.value)
      expect(after.context).toEqual(snapshot.context)
      expect(actions.some((a) => a.type === "writeRecord")).toBe(false)
    }
  })

  it("an armed crew lifts the belt", () => {
    expect(run([arm(false), allow(1)]).can(dispatch)).toBe(true)
  })
})

describe("arming (guard isGoverned)", () => {
  it("opens the user dialog when no goal governs; allow arms, reject goes back to standby", () => {
    const opened = arming()
    expect(changes(pending(), arm(false))).toEqual([])
    expect(changes(opened, allow(1))).toEqual(["armed"])
    expect(run([arm(false), allow(1)]).value).toEqual({ executing: "working" })
    expect(changes(opened, reject(1))).toEqual([])
    expect(run([arm(false), reject(1)]).value).toEqual({ pending: "standby" })
  })

  it("arms at once under a governing goal", () => {
    expect(changes(pending(), arm(true))).toEqual(["armed"])
    expect(executing().value).toEqual({ executing: "working" })
  })

  it("refuses a second arm while the dialog is open, and any arm once executing", () => {
    expect(refusal(arming(), arm(false))).toBe(
      `crew ${CREW} is waiting on the user's answer to an open dialog (pending.arming): ask again once it is answered.`,
    )
    expect(refusal(executing(), arm(true))).toBe(`crew ${CREW} is executing: only a pending crew can be armed.`)
    expect(refusal(run([], true), arm(false))).toContain("only a pending crew can be armed")
  })
})

describe("conversion (guard isNotGoverned)", () => {
  it("converts a pending crew when no goal governs: a final state with its record change", () => {
    expect(changes(pending(), convert(false))).toEqual(["converted"])
    expect(run([convert(false)]).value).toBe("converted")
  })

  it("refuses under a goal: the crew is governed already, with the ways out", () => {
    const text = refusal(pending(), convert(true))
    expect(text).toContain("governs it already")
    expect(text).toContain('execution "goal" is refused')
    expect(text).toContain('execution "waves"')
    expect(text).toContain("abandon")
  })

  it("refuses once executing, and in a dialog", () => {
    expect(refusal(executing(), convert(false))).toBe(`crew ${CREW} is executing: only a pending crew can be converted to a goal.`)
    expect(refusal(arming(), convert(false))).toContain("waiting on the user's answer")
  })
})
