// What the crew.machine.*.test.ts files share: the crew machine alone, with pure `initialTransition`/`transition`: the
// `writeRecord` placeholder never runs, it is only asked for (with its params) in the actions a step returns. Refusal
// texts are checked only where the machine does refuse (`can` is false): the text describes the decision, it never
// makes it.
import { expect } from "vitest"
import { type SnapshotFrom, initialTransition, transition } from "xstate"
import type { CrewBirthFacts, CrewVerdict } from "../../../machines/crew/crew.gates"
import { type CrewEvent, type CrewInput, type CrewRecordChange, type CrewRegistration, crewMachine } from "../../../machines/crew/crew.machine"
import { explainCrewRefusal } from "../../../machines/crew/crew.refusals"

export type Snapshot = SnapshotFrom<typeof crewMachine>

export const CREW = ".opencode/crew/2026-11-30-ship-the-parser.md"
const PENDING: CrewRegistration = { execution: null, governed: false }
const ARMED_BY_GOAL: CrewRegistration = { execution: "waves", governed: true }
/** A session free of crews, with two workers a task call can dispatch: a birth the facts allow. */
export const FREE: CrewBirthFacts = { liveCrew: null, workers: { dispatchable: 2, findings: [] } }
export const input = (bornArmed = false, registration = bornArmed ? ARMED_BY_GOAL : PENDING, birth = FREE): CrewInput => ({
  crewPath: CREW,
  sessionId: "s1",
  objective: "Ship the parser",
  subtasks: [
    { title: "Write the parser", agent: "forge-coder", files: ["src/parser.ts"] },
    { title: "Survey prior art", agent: null, files: [] },
  ],
  lineage: null,
  registration,
  birth,
  createdAt: Date.parse("2026-11-30T03:00:00.000Z"),
  record: "---\nstatus: pending\n---\n",
})

export const pass = (subtask: string, evidence = "tests pass"): CrewVerdict => ({ subtask, verdict: "PASS", evidence, failures: [] })
export const fail = (subtask: string, failures: string[]): CrewVerdict => ({ subtask, verdict: "FAIL", evidence: "still red", failures })
export const complete: CrewVerdict[] = [pass("Write the parser"), fail("Survey prior art", ["first try: no access", "retry: still no access"])]

export const arm = (governed: boolean): CrewEvent => ({ type: "crew.arm", governed })
export const convert = (governed: boolean): CrewEvent => ({ type: "crew.convert", governed })
export const close = (governed: boolean, report: CrewVerdict[] = complete): CrewEvent => ({ type: "crew.close", report, governed })
export const abandon = (governed: boolean, reason = "wrong decomposition"): CrewEvent => ({ type: "crew.abandon", reason, governed })
export const restored: CrewEvent = { type: "crew.restored" }
/** The user's answers name the dialog they answer: the context's `dialog` when it was opened (the first is 1). */
export const allow = (dialog: number): CrewEvent => ({ type: "dialog.allow", dialog })
export const reject = (dialog: number): CrewEvent => ({ type: "dialog.reject", dialog })
export const dispatch: CrewEvent = { type: "crew.dispatch" }

/** Every event the world can send, for "refuses everything" checks. */
export const everyEvent: CrewEvent[] = [
  arm(false),
  arm(true),
  convert(false),
  convert(true),
  close(false),
  close(true),
  abandon(false),
  abandon(true),
  restored,
  allow(1),
  reject(1),
  dispatch,
]

export function start(bornArmed = false): Snapshot {
  return initialTransition(crewMachine, input(bornArmed))[0]
}

/** Steps through events the machine must accept; returns the last snapshot. */
export function run(events: CrewEvent[], bornArmed = false): Snapshot {
  let snapshot = start(bornArmed)
  for (const event of events) {
    expect(snapshot.can(event), `${event.type} from ${JSON.stringify(snapshot.value)}`).toBe(true)
    snapshot = transition(crewMachine, snapshot, event)[0]
  }
  return snapshot
}

/** The record changes (`writeRecord` params) one step asks for. */
export function changes(snapshot: Snapshot, event: CrewEvent): CrewRecordChange[] {
  const [, actions] = transition(crewMachine, snapshot, event)
  return actions.filter((a) => a.type === "writeRecord").map((a) => (a.params as { change: CrewRecordChange }).change)
}

/** The refusal of an event the machine must refuse. */
export function refusal(snapshot: Snapshot, event: CrewEvent): string {
  expect(snapshot.can(event), `${event.type} must be refused in ${JSON.stringify(snapshot.value)}`).toBe(false)
  return explainCrewRefusal(snapshot, event)
}

export const pending = () => run([])
export const arming = () => run([arm(false)])
export const pendingAbandoning = () => run([abandon(false)])
export const executing = () => run([arm(true)])
export const closing = () => run([arm(true), close(false)])
export const executingAbandoning = () => run([arm(true), abandon(false)])
