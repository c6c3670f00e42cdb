// The crew machine's user dialogs beyond their answers: a restart closes a dialog that died with the old process, and a
// dialog answer outside a dialog is refused.
import { describe, expect, it } from "vitest"
import { transition } from "xstate"
import { crewMachine } from "../../../machines/crew.machine"
import {
  CREW,
  allow,
  arming,
  closing,
  dispatch,
  executing,
  executingAbandoning,
  pending,
  pendingAbandoning,
  refusal,
  reject,
  restored,
} from "./crew.machine.helpers"

describe("crew.restored (a restart: an open dialog died with the old process)", () => {
  it.each([
    ["pending.standby", pending, { pending: "standby" }],
    ["pending.arming", arming, { pending: "standby" }],
    ["pending.abandoning", pendingAbandoning, { pending: "standby" }],
    ["executing.working", executing, { executing: "working" }],
    ["executing.closing", closing, { executing: "working" }],
    ["executing.abandoning", executingAbandoning, { executing: "working" }],
  ] as const)("from %s: back to the state without its dialog, pending report and reason dropped, record written", (_, from, value) => {
    const [after, actions] = transition(crewMachine, from(), restored)
    expect(after.value).toEqual(value)
    expect(after.context).toMatchObject({ pendingReport: null, pendingReason: null, report: null, reason: null })
    expect(after.hasTag("awaiting-user")).toBe(false)
    expect(actions.filter((a) => a.type === "writeRecord").map((a) => a.params)).toEqual([{ change: "restored" }])
  })

  it("a restored pending crew still holds the belt; a restored executing one does not", () => {
    expect(transition(crewMachine, arming(), restored)[0].can(dispatch)).toBe(false)
    expect(transition(crewMachine, closing(), restored)[0].can(dispatch)).toBe(true)
  })
})

describe("dialog events outside a dialog", () => {
  it.each([
    ["pending.standby", pending],
    ["executing.working", executing],
  ] as const)("are refused in %s, naming the state", (name, from) => {
    for (const event of [allow, reject]) expect(refusal(from(), event)).toBe(`crew ${CREW} is not waiting on a user dialog (it is ${name}).`)
  })
})
