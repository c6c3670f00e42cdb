import { describe, expect, it } from "vitest"
import { isUserGatedCrewDocumentStatus } from "../../../machines/crew.gates"
import { type SnapshotFrom, initialTransition, transition } from "xstate"
import type { CrewVerdict } from "../../../machines/crew.gates"
import { type CrewEvent, type CrewInput, type CrewRecordChange, type CrewRegistration, crewMachine } from "../../../machines/crew.machine"
import { explainCrewBirthRefusal, explainCrewRefusal } from "../../../machines/crew.refusals"
import { crewStatusOf } from "../../../machines/crew.status"
import { defined } from "../../defined"

// The crew machine alone, with pure `initialTransition`/`transition`: the `writeRecord` placeholder never runs, it is
// only asked for (with its params) in the actions a step returns. Refusal texts are checked only where the machine
// does refuse (`can` is false): the text describes the decision, it never makes it.

type Snapshot = SnapshotFrom<typeof crewMachine>

const CREW = ".opencode/crew/2026-11-30-ship-the-parser.md"
const PENDING: CrewRegistration = { execution: null, governed: false }
const ARMED_BY_GOAL: CrewRegistration = { execution: "waves", governed: true }
const input = (bornArmed = false, registration = bornArmed ? ARMED_BY_GOAL : PENDING): CrewInput => ({
  crewPath: CREW,
  sessionId: "s1",
  objective: "Ship the parser",
  subtasks: [
    { title: "Write the parser", agent: "forge-coder" },
    { title: "Survey prior art", agent: null },
  ],
  lineage: null,
  registration,
  createdAt: Date.parse("2026-11-30T03:00:00.000Z"),
  record: "---\nstatus: pending\n---\n",
})

const pass = (subtask: string, evidence = "tests pass"): CrewVerdict => ({ subtask, verdict: "PASS", evidence, failures: [] })
const fail = (subtask: string, failures: string[]): CrewVerdict => ({ subtask, verdict: "FAIL", evidence: "still red", failures })
const complete: CrewVerdict[] = [pass("Write the parser"), fail("Survey prior art", ["first try: no access", "retry: still no access"])]

const arm = (governed: boolean): CrewEvent => ({ type: "crew.arm", governed })
const convert = (governed: boolean): CrewEvent => ({ type: "crew.convert", governed })
const close = (governed: boolean, report: CrewVerdict[] = complete): CrewEvent => ({ type: "crew.close", report, governed })
const abandon = (governed: boolean, reason = "wrong decomposition"): CrewEvent => ({ type: "crew.abandon", reason, governed })
const restored: CrewEvent = { type: "crew.restored" }
const allow: CrewEvent = { type: "dialog.allow" }
const reject: CrewEvent = { type: "dialog.reject" }
const dispatch: CrewEvent = { type: "crew.dispatch" }

/** Every event the world can send, for "refuses everything" checks. */
const everyEvent: CrewEvent[] = [
  arm(false),
  arm(true),
  convert(false),
  convert(true),
  close(false),
  close(true),
  abandon(false),
  abandon(true),
  restored,
  allow,
  reject,
  dispatch,
]

function start(bornArmed = false): Snapshot {
  return initialTransition(crewMachine, input(bornArmed))[0]
}

/** Steps through events the machine must accept; returns the last snapshot. */
function run(events: CrewEvent[], bornArmed = false): Snapshot {
  let snapshot = start(bornArmed)
  for (const event of events) {
    expect(snapshot.can(event), `${event.type} from ${JSON.stringify(snapshot.value)}`).toBe(true)
    snapshot = transition(crewMachine, snapshot, event)[0]
  }
  return snapshot
}

/** The record changes (`writeRecord` params) one step asks for. */
function changes(snapshot: Snapshot, event: CrewEvent): CrewRecordChange[] {
  const [, actions] = transition(crewMachine, snapshot, event)
  return actions.filter((a) => a.type === "writeRecord").map((a) => (a.params as { change: CrewRecordChange }).change)
}

/** The refusal of an event the machine must refuse. */
function refusal(snapshot: Snapshot, event: CrewEvent): string {
  expect(snapshot.can(event), `${event.type} must be refused in ${JSON.stringify(snapshot.value)}`).toBe(false)
  return explainCrewRefusal(snapshot, event)
}

const pending = () => run([])
const arming = () => run([arm(false)])
const pendingAbandoning = () => run([abandon(false)])
const executing = () => run([arm(true)])
const closing = () => run([arm(true), close(false)])
const executingAbandoning = () => run([arm(true), abandon(false)])

describe("registration", () => {
  it("writes the record once, then pends when not born armed", () => {
    const [snapshot, actions] = initialTransition(crewMachine, input(false))
    expect(snapshot.value).toEqual({ pending: "standby" })
    expect(actions.filter((a) => a.type === "writeRecord").map((a) => a.params)).toEqual([{ change: "created" }])
    const { record: _record, ...fields } = input(false)
    expect(snapshot.context).toStrictEqual({
      ...fields,
      pendingReport: null,
      pendingReason: null,
      report: null,
      reason: null,
      pendingDocument: null,
    })
    expect("record" in snapshot.context, "the record text is never kept in the context").toBe(false)
  })

  it("is born armed under a goal: straight to executing, the record written once", () => {
    const [snapshot, actions] = initialTransition(crewMachine, input(true))
    expect(snapshot.value).toEqual({ executing: "working" })
    expect(actions.filter((a) => a.type === "writeRecord").map((a) => a.params)).toEqual([{ change: "created" }])
    expect(crewStatusOf(snapshot.value)).toBe("executing")
  })

  it("pends under a goal too when no execution was asked in the registering call", () => {
    const [snapshot] = initialTransition(crewMachine, input(false, { execution: null, governed: true }))
    expect(snapshot.value).toEqual({ pending: "standby" })
  })

  it.each([
    [
      "execution waves without a goal",
      input(false, { execution: "waves", governed: false }),
      "crew_begin: registration and execution in one call is legal only under an active goal of this session. Register without execution, show the user the record path and the choices, and end your turn: the user picks waves, goal, or standby.",
    ],
    [
      "execution goal without a goal",
      input(false, { execution: "goal", governed: false }),
      "crew_begin: registration and execution in one call is legal only under an active goal of this session. Register without execution, show the user the record path and the choices, and end your turn: the user picks waves, goal, or standby.",
    ],
    [
      "execution goal under a goal",
      input(false, { execution: "goal", governed: true }),
      'crew_begin: the session\'s active goal governs it already, so execution "goal" is refused. Register with execution "waves" (born armed).',
    ],
    [
      "no objective and a repeated title (even born armed)",
      { ...input(true), objective: "  ", subtasks: [...input().subtasks, { title: "survey prior  art", agent: null }] },
      'crew_begin: the crew needs an objective; subtask 3 repeats the title "survey prior  art" (titles must be unique).',
    ],
    ["no subtask", { ...input(), subtasks: [] }, "crew_begin: the crew declares no subtask: give each piece of work one titled subtask."],
  ])("the birth gate refuses %s: it ends in refused with no record written", (_, born, message) => {
    const [snapshot, actions] = initialTransition(crewMachine, born)
    expect(snapshot.value).toBe("refused")
    expect(snapshot.status).toBe("done")
    expect(actions.filter((a) => a.type === "writeRecord")).toEqual([])
    expect(explainCrewBirthRefusal(snapshot)).toBe(message)
  })

  it("maps every state to its record status (registering reads as pending)", () => {
    expect(crewStatusOf("registering")).toBe("pending")
    expect(crewStatusOf({ pending: "arming" })).toBe("pending")
    expect(crewStatusOf({ executing: "closing" })).toBe("executing")
    expect(crewStatusOf("closed")).toBe("closed")
    expect(crewStatusOf("abandoned")).toBe("abandoned")
    expect(crewStatusOf("converted")).toBe("converted")
  })
})

describe("every state is reachable", () => {
  it.each([
    ["pending.standby", pending, { pending: "standby" }],
    ["pending.arming", arming, { pending: "arming" }],
    ["pending.abandoning", pendingAbandoning, { pending: "abandoning" }],
    ["executing.working", executing, { executing: "working" }],
    ["executing.closing", closing, { executing: "closing" }],
    ["executing.abandoning", executingAbandoning, { executing: "abandoning" }],
    ["closed", () => run([arm(true), close(true)]), "closed"],
    ["abandoned", () => run([abandon(true)]), "abandoned"],
    ["converted", () => run([convert(false)]), "converted"],
  ] as const)("%s", (_, reach, value) => {
    expect(reach().value).toEqual(value)
  })
})

describe("tags", () => {
  it.each([
    ["pending.standby", pending, ["dispatch-belt", "live"]],
    ["pending.arming", arming, ["awaiting-user", "dispatch-belt", "live"]],
    ["pending.abandoning", pendingAbandoning, ["awaiting-user", "dispatch-belt", "live"]],
    ["executing.working", executing, ["live"]],
    ["executing.closing", closing, ["awaiting-user", "live"]],
    ["executing.abandoning", executingAbandoning, ["awaiting-user", "live"]],
    ["closed", () => run([arm(true), close(true)]), []],
    ["abandoned", () => run([abandon(true)]), []],
    ["converted", () => run([convert(false)]), []],
  ] as const)("%s", (_, reach, tags) => {
    expect([...reach().tags].sort()).toEqual(tags)
  })

  it("final states are done", () => {
    for (const snapshot of [run([arm(true), close(true)]), run([abandon(true)]), run([convert(false)])]) expect(snapshot.status).toBe("done")
  })
})

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
    expect(run([arm(false), allow]).can(dispatch)).toBe(true)
  })
})

describe("arming (guard isGoverned)", () => {
  it("opens the user dialog when no goal governs; allow arms, reject goes back to standby", () => {
    const opened = arming()
    expect(changes(pending(), arm(false))).toEqual([])
    expect(changes(opened, allow)).toEqual(["armed"])
    expect(run([arm(false), allow]).value).toEqual({ executing: "working" })
    expect(changes(opened, reject)).toEqual([])
    expect(run([arm(false), reject]).value).toEqual({ pending: "standby" })
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

    const [allowed, allowActions] = transition(crewMachine, dialog, allow)
    expect(allowed.value).toBe("abandoned")
    expect(allowed.context).toMatchObject({ reason: "wrong decomposition", pendingReason: null })
    // The record write sees the reason the step committed.
    const write = defined(
      allowActions.find((a) => a.type === "writeRecord"),
      "the record write",
    )
    expect(write.params).toEqual({ change: "abandoned" })
    expect((write.info.context as Snapshot["context"]).reason).toBe("wrong decomposition")

    const rejected = transition(crewMachine, dialog, reject)[0]
    expect(rejected.value).toEqual(from().value)
    expect(rejected.context.pendingReason).toBeNull()
    expect(changes(dialog, reject)).toEqual([])

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

    const [closed, actions] = transition(crewMachine, dialog, allow)
    expect(closed.value).toBe("closed")
    expect(closed.context).toMatchObject({ report: complete, pendingReport: null })
    const write = defined(
      actions.find((a) => a.type === "writeRecord"),
      "the record write",
    )
    expect((write.info.context as Snapshot["context"]).report).toEqual(complete)

    const rejected = transition(crewMachine, dialog, reject)[0]
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

describe("a finished crew refuses everything", () => {
  it.each([
    ["closed", () => run([arm(true), close(true)])],
    ["abandoned", () => run([arm(false), allow, abandon(false), allow])],
    ["converted", () => run([convert(false)])],
  ] as const)("%s", (status, reach) => {
    const done = reach()
    for (const event of everyEvent) {
      expect(refusal(done, event)).toBe(`crew ${CREW} is ${status}: a finished crew accepts no further changes. Register a new one with crew_begin.`)
    }
  })
})

describe("record direction (issue 23 §1b)", () => {
  it("only the close and the arm are user-gated", () => {
    const all = ["pending", "executing", "closed", "abandoned", "converted"] as const
    const gated = all.flatMap((from) => all.filter((to) => isUserGatedCrewDocumentStatus(from, to)).map((to) => `${from}->${to}`))
    expect(gated.sort()).toEqual(["abandoned->closed", "converted->closed", "executing->closed", "pending->closed", "pending->executing"].sort())
  })
})
