// How an executing or pending crew ends: an abandon, and a close whose report must match the declared plan; both at
// once under a governing goal, through the user's dialog without one.
import { describe, expect, it } from "vitest"
import { transition } from "xstate"
import { crewMachine } from "../../../machines/crew/crew.machine"
import { defined } from "../../defined"
import {
  CREW,
  type Snapshot,
  abandon,
  allow,
  arm,
  arming,
  changes,
  close,
  closing,
  complete,
  executing,
  fail,
  pass,
  pending,
  pendingAbandoning,
  refusal,
  reject,
  run,
} from "./crew.machine.helpers"

describe("abandon (guard isGoverned)", () => {
  it.each([
    ["pending", pending],
    ["executing", executing],
  ] as const)("from %s: a dialog without a goal, at once under one", (_, from) => {
    const dialog = transition(crewMachine, from(), abandon(false))[0]
    expect(dialog.hasTag("awaiting-user")).toBe(true)
    expect(dialog.context.pendingReason).toBe("wrong decomposition")
    expect(dialog.context.reason).toBeNull()
    expect(changes(from(), abandon(false))).toEqual([])

    const [allowed, allowActions] = transition(crewMachine, dialog, allow(1))
    expect(allowed.value).toBe("abandoned")
    expect(allowed.context).toMatchObject({ reason: "wrong decomposition", pendingReason: null })
    // The record write sees the reason the step committed.
    const write = defined(
      allowActions.find((a) => a.type === "writeRecord"),
      "the record write",
    )
    expect(write.params).toEqual({ change: "abandoned" })
    expect((write.info.context as Snapshot["context"]).reason).toBe("wrong decomposition")

    const rejected = transition(crewMachine, dialog, reject(1))[0]
    expect(rejected.value).toEqual(from().value)
    expect(rejected.context.pendingReason).toBeNull()
    expect(changes(dialog, reject(1))).toEqual([])

    const [governed, governedActions] = transition(crewMachine, from(), abandon(true, "re-shard"))
    expect(governed.value).toBe("abandoned")
    expect(governed.context.reason).toBe("re-shard")
    expect(governedActions.filter((a) => a.type === "writeRecord").map((a) => a.params)).toEqual([{ change: "abandoned" }])
  })

  it("refuses while a dialog is open", () => {
    expect(refusal(closing(), abandon(true))).toContain("(executing.closing)")
    expect(refusal(pendingAbandoning(), abandon(true))).toContain("(pending.abandoning)")
  })
})

describe("close (guards canCloseGoverned, isCompleteReport)", () => {
  it("closes at once with a complete report under a goal", () => {
    const [closed, actions] = transition(crewMachine, executing(), close(true))
    expect(closed.value).toBe("closed")
    expect(closed.context.report).toEqual(complete)
    expect(actions.filter((a) => a.type === "writeRecord").map((a) => a.params)).toEqual([{ change: "closed" }])
  })

  it("holds a complete report for the user's dialog without a goal; allow closes with it, reject drops it", () => {
    const dialog = closing()
    expect(dialog.value).toEqual({ executing: "closing" })
    expect(dialog.context.pendingReport).toEqual(complete)
    expect(dialog.context.report).toBeNull()
    expect(changes(executing(), close(false))).toEqual([])

    const [closed, actions] = transition(crewMachine, dialog, allow(1))
    expect(closed.value).toBe("closed")
    expect(closed.context).toMatchObject({ report: complete, pendingReport: null })
    const write = defined(
      actions.find((a) => a.type === "writeRecord"),
      "the record write",
    )
    expect((write.info.context as Snapshot["context"]).report).toEqual(complete)

    const rejected = transition(crewMachine, dialog, reject(1))[0]
    expect(rejected.value).toEqual({ executing: "working" })
    expect(rejected.context.pendingReport).toBeNull()
  })

  it.each([
    ["a declared subtask is missing", [pass("Write the parser")], [`declared subtasks without a verdict: "Survey prior art"`]],
    [
      "an undeclared subtask is reported",
      [...complete, pass("Refactor the lexer")],
      [
        `undeclared subtasks "Refactor the lexer" (the report must follow the declared plan: fold a discovery into an existing verdict, or abandon and register a new crew)`,
      ],
    ],
    ["a subtask is given two verdicts", [...complete, pass("write  the PARSER")], [`subtasks given more than one verdict: "Write the parser"`]],
    ["a verdict has no evidence", [pass("Write the parser", "  "), pass("Survey prior art")], [`verdicts without evidence: "Write the parser"`]],
    [
      "a FAIL has fewer than 2 failure reports",
      [pass("Write the parser"), fail("Survey prior art", ["first try", " "])],
      [`FAIL verdicts without both failure reports (2: the first attempt's and the retry's): "Survey prior art"`],
    ],
    [
      "several things at once",
      [pass("Extra"), fail("Survey prior art", [])],
      [`undeclared subtasks "Extra"`, `declared subtasks without a verdict: "Write the parser"`, `FAIL verdicts without both failure reports`],
    ],
  ] as const)("refuses an incomplete report, governed or not, when %s", (_, report, reasons) => {
    for (const governed of [false, true]) {
      const text = refusal(executing(), close(governed, [...report]))
      expect(text).toMatch(new RegExp(`^crew close gate: the report of ${CREW.replace(/\./g, "\\.")} does not match its declared plan — `))
      for (const reason of reasons) expect(text).toContain(reason)
      expect(text.endsWith(".")).toBe(true)
    }
  })

  it("refuses a close of a pending crew (arm it first, or abandon it), and in a dialog", () => {
    const text = refusal(pending(), close(true))
    expect(text).toBe(
      `crew ${CREW} is pending: only an armed crew closes with verdicts. Arm it first, or abandon it (crew_close with abandon: true and a reason).`,
    )
    expect(refusal(closing(), close(true))).toContain("waiting on the user's answer to an open dialog (executing.closing)")
    expect(refusal(arming(), close(true))).toContain("waiting on the user's answer")
  })

  it("takes a FAIL with both failure reports", () => {
    expect(run([arm(true), close(true, [pass("write the parser"), fail("Survey prior art", ["one", "two"])])]).value).toBe("closed")
  })
})
