// The crew machine's user dialogs beyond their answers: every dialog is numbered and an answer counts only for the one
// open (machines/dialog.gates.ts), a restart closes a dialog that died with the old process, and a dialog answer
// outside a dialog is refused.
import { describe, expect, it } from "vitest"
import { transition } from "xstate"
import { crewMachine } from "../../../machines/crew/crew.machine"
import {
  CREW,
  abandon,
  allow,
  arm,
  close,
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
  run,
} from "./crew.machine.helpers"

const stale = (answered: number, open: number, status: string) =>
  `answer refused: it is for dialog ${answered} of crew ${CREW}, which closed while it was open (${open > answered ? `dialog ${open} was opened since` : "it holds no such dialog"}; crew ${CREW} is ${status} now: another command, or another opencode process on this workspace, moved it). This answer changes nothing. Ask again if it still matters.`

describe("numbered dialogs (guard isAnswerToOpenDialog)", () => {
  it("a crew is born with no dialog opened", () => {
    expect(pending().context.dialog).toBe(0)
    expect(executing().context.dialog).toBe(0)
  })

  it.each([
    ["pending.arming", arming, "pending", { executing: "working" }, { pending: "standby" }],
    ["pending.abandoning", pendingAbandoning, "pending", "abandoned", { pending: "standby" }],
    ["executing.closing", closing, "executing", "closed", { executing: "working" }],
    ["executing.abandoning", executingAbandoning, "executing", "abandoned", { executing: "working" }],
  ] as const)("%s opens a new dialog; its answer is taken, an older or unknown one refused as stale", (_, reach, status, allowed, rejected) => {
    const open = reach()
    expect(open.context.dialog).toBe(1)
    expect(transition(crewMachine, open, allow(1))[0].value).toEqual(allowed)
    expect(transition(crewMachine, open, reject(1))[0].value).toEqual(rejected)
    for (const event of [allow(0), reject(0)]) expect(refusal(open, event)).toBe(stale(0, 1, status))
    expect(refusal(open, allow(2))).toBe(stale(2, 1, status))
  })

  it("two dialogs in the same state are told apart: leaving and re-entering opens the next one", () => {
    const first = arming()
    const second = transition(crewMachine, transition(crewMachine, first, reject(1))[0], arm(false))[0]
    expect(second.value).toEqual(first.value)
    expect(second.context.dialog).toBe(2)
    expect(refusal(second, allow(1))).toBe(stale(1, 2, "pending"))
    expect(refusal(second, reject(1))).toBe(stale(1, 2, "pending"))
    expect(transition(crewMachine, second, allow(2))[0].value).toEqual({ executing: "working" })
  })

  it("the number keeps counting across dialog states and a restart", () => {
    const executingAgain = run([arm(false), allow(1), abandon(false), reject(2), close(false)])
    expect(executingAgain.value).toEqual({ executing: "closing" })
    expect(executingAgain.context.dialog).toBe(3)
    const afterRestart = transition(crewMachine, transition(crewMachine, executingAgain, restored)[0], close(false))[0]
    expect(afterRestart.context.dialog).toBe(4)
    expect(refusal(afterRestart, allow(3))).toBe(stale(3, 4, "executing"))
  })
})

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
    for (const event of [allow(0), reject(0)]) expect(refusal(from(), event)).toBe(`crew ${CREW} is not waiting on a user dialog (it is ${name}).`)
  })
})
