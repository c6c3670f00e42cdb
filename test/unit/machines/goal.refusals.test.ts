import { describe, expect, it } from "vitest"
import { type SnapshotFrom, getNextSnapshot, initialTransition } from "xstate"
import type { Attestation, CheckRun } from "../../../machines/goal/goal.gates"
import { type GoalEvent, goalMachine } from "../../../machines/goal/goal.machine"
import { explainGoalRefusal } from "../../../machines/goal/goal.refusals"
import { MINUTE, type Overrides, T0, allow, arm, input, inputWith, limits, reject, terms } from "./goal.fixtures"

// A refusal text names the gate that refused and the way past it. Each case first checks that the machine does refuse
// the event (`snapshot.can` is false): the text describes the machine's decision, it never makes it.

type Snapshot = SnapshotFrom<typeof goalMachine>

const goal = input.goalPath
const idle = (now: number): GoalEvent => ({ type: "session.idle", now })
const CLAIM_UNTIL = T0 + 15_000
const due = (now: number, facts: { speaker?: "forge" | "other"; draftPlan?: boolean; me?: string } = {}): GoalEvent => ({
  type: "loop.due",
  now,
  speaker: facts.speaker ?? "forge",
  draftPlan: facts.draftPlan ?? false,
  spend: { cost: 0, tokens: 0 },
  driver: { me: facts.me ?? "p1", claim: { holder: "p1", until: CLAIM_UNTIL }, holderAlive: true, now },
})
const pause: GoalEvent = { type: "goal.pause", by: "user" }
const discardByModel: GoalEvent = { type: "goal.discard", by: "model" }
const resume = (fields: { draftPlan?: boolean; now?: number; addTurns?: number; addMinutes?: number } = {}): GoalEvent => ({
  type: "goal.resume",
  sessionId: "s3",
  draftPlan: false,
  now: T0 + 30 * MINUTE,
  addTurns: 0,
  addMinutes: 0,
  ...fields,
})
const revise = (checkCount: number): GoalEvent => ({ type: "goal.revise", contract: terms(input.contract.success, checkCount), limits, document: "" })
const attestations: Attestation[] = [
  { criterion: "Login works", evidence: "login.test.ts: 3 passed" },
  { criterion: "Suite is green", evidence: "npm test: 12 passed" },
]
const passing: CheckRun[] = [
  { item: 1, pass: true },
  { item: 2, pass: true },
]
const complete = (fields: { revision?: number; results?: CheckRun[]; attestations?: Attestation[] } = {}): GoalEvent => ({
  type: "goal.complete",
  run: { revision: fields.revision ?? 1, results: fields.results ?? passing },
  attestations: fields.attestations ?? attestations,
})

function run(events: GoalEvent[], overrides: Overrides = {}): Snapshot {
  let [snapshot] = initialTransition(goalMachine, inputWith(overrides))
  for (const event of events) {
    expect(snapshot.can(event), `${event.type} from ${JSON.stringify(snapshot.value)}`).toBe(true)
    snapshot = getNextSnapshot(goalMachine, snapshot, event)
  }
  return snapshot
}
const active = (overrides: Overrides = {}) => run([arm, allow(1, T0)], overrides)
const paused = (overrides: Overrides = {}) => run([arm, allow(1, T0), pause], overrides)

/** The machine refuses the event; the text that explains it. */
function refusal(snapshot: Snapshot, event: GoalEvent): string {
  expect(snapshot.can(event), `${event.type} from ${JSON.stringify(snapshot.value)}`).toBe(false)
  return explainGoalRefusal(snapshot, event)
}

describe("arm gate", () => {
  it("names the missing check and how to add one", () => {
    const text = refusal(run([], { checkCount: 0 }), arm)
    expect(text).toMatch(/^arm gate: goal \.opencode\/goal\/2026-11-30-login\.md has no check the host can run/)
    expect(text).toContain('--check "command"')
    expect(text).toContain('--contains "file::text"')
    expect(text).toContain("goal_write with revise=true")
  })

  it("a missing check is named before a draft plan", () => {
    expect(refusal(run([], { checkCount: 0 }), { ...arm, draftPlan: true })).toMatch(/^arm gate:/)
  })

  it("only a queued goal is armed; a paused one is resumed", () => {
    expect(refusal(active(), arm)).toBe(`goal ${goal} is active: only a queued goal is armed (a paused one is resumed: goal_resume).`)
    expect(refusal(paused(), arm)).toMatch(/is paused: only a queued goal is armed .*goal_resume/)
  })
})

describe("draft-conflict gate", () => {
  it("refuses to arm while the session has a draft plan, naming both ways out", () => {
    const text = refusal(run([]), { ...arm, draftPlan: true })
    expect(text).toMatch(/^draft-conflict gate: this session has a draft plan/)
    expect(text).toContain(`goal ${goal} cannot be armed now`)
    expect(text).toContain("plan_approve")
    expect(text).toContain("/plan discard")
  })

  it("refuses to resume while the session has a draft plan", () => {
    const text = refusal(paused(), resume({ draftPlan: true }))
    expect(text).toMatch(/^draft-conflict gate: /)
    expect(text).toContain(`goal ${goal} cannot be resumed now`)
    expect(text).toContain("plan_approve")
    expect(text).toContain("/plan discard")
  })
})

describe("resume gate", () => {
  it("a spent turn budget: the turns used and the way past it, addTurns or addMinutes within the ceilings", () => {
    const spent = run([arm, allow(1, T0), idle(T0 + 1_000), due(T0 + 3_000), { type: "goal.activity", kind: "writes" }, idle(T0 + 5_000), due(T0 + 7_000)], {
      limits: { ...limits, maxTurns: 1 },
    })
    expect(spent.context.stopReason).toBe("budget-turns")
    const text = refusal(spent, resume())
    expect(text).toBe(
      `resume gate: goal ${goal} has spent its budget (1 of 1 turns, 60 minutes since it was armed). ` +
        "Resume it with more: addTurns, addMinutes (at most 200 turns and 480 minutes in all), addCost or addTokens.",
    )
    expect(refusal(spent, resume({ addMinutes: 30 }))).toContain("1 of 1 turns, 90 minutes")
  })

  it("a spent time budget", () => {
    const text = refusal(paused(), resume({ now: T0 + 60 * MINUTE }))
    expect(text).toMatch(/^resume gate: .*has spent its budget \(0 of 10 turns, 60 minutes since it was armed\)/)
    expect(text).toContain("addMinutes")
  })

  it("no check to run", () => {
    const text = refusal(run([arm, allow(1, T0), pause, revise(0)]), resume())
    expect(text).toBe(`resume gate: goal ${goal} has no check the host can run. Add one (goal_write with revise=true) first.`)
  })

  it("only a paused goal is resumed", () => {
    expect(refusal(active(), resume())).toBe(`goal ${goal} is active: only a paused goal is resumed.`)
    expect(refusal(run([]), resume())).toBe(`goal ${goal} is queued: only a paused goal is resumed.`)
  })
})

describe("completion gate", () => {
  it("lists the failing and missing checks by number", () => {
    const three = active({ checkCount: 3 })
    const text = refusal(
      three,
      complete({
        results: [
          { item: 1, pass: false },
          { item: 2, pass: true },
        ],
      }),
    )
    expect(text).toBe(`completion gate: goal ${goal} is not complete — checks 1, 3 did not pass in the host's run.`)
    expect(refusal(active(), complete({ results: [{ item: 1, pass: true }] }))).toContain("check 2 did not pass in the host's run")
  })

  it("names a run for another revision", () => {
    const revised = run([arm, allow(1, T0), revise(2)])
    expect(refusal(revised, complete({ revision: 1 }))).toBe(
      `completion gate: goal ${goal} is not complete — the checks ran for revision 1, the contract is at revision 2.`,
    )
  })

  it("names the criteria without an attestation, attested twice, and the strangers", () => {
    const [login] = attestations as [Attestation]
    expect(refusal(active(), complete({ attestations: [login] }))).toContain('criteria without an attestation with evidence: "Suite is green"')
    expect(refusal(active(), complete({ attestations: [login, { criterion: "Suite is green", evidence: " " }] }))).toContain(
      'criteria without an attestation with evidence: "Suite is green"',
    )
    expect(refusal(active(), complete({ attestations: [...attestations, { criterion: "login  WORKS", evidence: "again" }] }))).toContain(
      'criteria attested more than once: "Login works"',
    )
    expect(refusal(active(), complete({ attestations: [...attestations, { criterion: "Fast", evidence: "x" }] }))).toContain(
      'attestations naming no criterion of the goal: "Fast"',
    )
  })

  it("joins every reason", () => {
    const text = refusal(active(), complete({ revision: 2, results: [{ item: 2, pass: false }], attestations: [] }))
    expect(text).toBe(
      `completion gate: goal ${goal} is not complete — the checks ran for revision 2, the contract is at revision 1; ` +
        `checks 1, 2 did not pass in the host's run; criteria without an attestation with evidence: "Login works", "Suite is green".`,
    )
  })

  it("only an active goal completes; a paused one is resumed first", () => {
    expect(refusal(paused(), complete())).toBe(`completion gate: goal ${goal} is paused; only an active goal completes. Resume it first (goal_resume).`)
    expect(refusal(run([]), complete())).toBe(`completion gate: goal ${goal} is queued; only an active goal completes.`)
  })
})

describe("dialogs", () => {
  it("an answer with no dialog open says so and names the state", () => {
    expect(refusal(active(), allow(1))).toBe(`goal ${goal} is not waiting on a user dialog (it is active.working).`)
    expect(refusal(run([]), reject(0))).toBe(`goal ${goal} is not waiting on a user dialog (it is queued.waiting).`)
    expect(refusal(paused(), allow(1))).toBe(`goal ${goal} is not waiting on a user dialog (it is paused.stopped).`)
  })

  it("while a dialog is open, other requests wait for the user's answer", () => {
    const cases: Array<[Snapshot, GoalEvent, string]> = [
      [run([arm]), discardByModel, "queued.arming"],
      [run([arm]), revise(3), "queued.arming"],
      [run([discardByModel]), arm, "queued.discarding"],
      [run([arm, allow(1, T0), complete()]), complete(), "active.completing"],
      [run([arm, allow(1, T0), discardByModel]), revise(3), "active.discarding"],
      [run([arm, allow(1, T0), pause, resume()]), resume(), "paused.resuming"],
    ]
    for (const [snapshot, event, state] of cases) {
      expect(refusal(snapshot, event)).toBe(`goal ${goal} is waiting on the user's answer to an open dialog (${state}): ask again once it is answered.`)
    }
  })
})

describe("the loop", () => {
  it("loop.due before its deadline, or outside the debounce, is not due", () => {
    const debouncing = run([arm, allow(1, T0), idle(T0 + 1_000)])
    expect(refusal(debouncing, due(T0 + 2_999))).toBe(`goal ${goal}: the loop is not due (active.debouncing).`)
    expect(refusal(active(), due(T0 + 10_000))).toBe(`goal ${goal}: the loop is not due (active.working).`)
  })

  it("another process's decision while the claim's holder lives names the holder and the claim's end", () => {
    const sent = run([arm, allow(1, T0), idle(T0 + 1_000), due(T0 + 3_000), { type: "goal.activity", kind: "writes" }, idle(T0 + 10_000)])
    expect(refusal(sent, due(T0 + 12_000, { me: "p2" }))).toBe(
      `goal ${goal} is driven by another opencode process (p1), which still runs; its claim runs until ${new Date(CLAIM_UNTIL).toISOString()} and is renewed while it lives. This process takes it over only once that process has ended. It decides this idle.`,
    )
  })

  it("only an active goal is paused", () => {
    expect(refusal(paused(), pause)).toBe(`goal ${goal} is paused: only an active goal is paused.`)
    expect(refusal(run([]), pause)).toBe(`goal ${goal} is queued: only an active goal is paused.`)
  })

  it("session events outside the loop change nothing", () => {
    expect(refusal(paused(), idle(T0))).toBe(`goal ${goal} is paused.stopped: "session.idle" changes nothing there.`)
    expect(refusal(run([]), { type: "loop.failed", now: T0, error: "x" })).toBe(`goal ${goal} is queued.waiting: "loop.failed" changes nothing there.`)
  })
})

describe("a finished goal", () => {
  const completed = () => run([arm, allow(1, T0), complete(), allow(2, T0 + MINUTE)])
  const abandoned = () => run([discardByModel, allow(1)])

  it.each([
    ["completed", completed],
    ["abandoned", abandoned],
  ] as const)("%s accepts no further changes: write a new goal", (status, reach) => {
    const done = reach()
    for (const event of [arm, resume(), complete(), pause, revise(3), { type: "goal.discard", by: "user" }, allow(2), idle(T0)] as GoalEvent[]) {
      expect(refusal(done, event)).toBe(`goal ${goal} is ${status}: a finished goal accepts no further changes. Write a new goal with goal_write.`)
    }
  })
})
