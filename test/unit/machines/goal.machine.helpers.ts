// What the goal.machine.*.test.ts files share: the goal machine alone, stepped through pure transitions, the events
// they send and the states they reach. The placeholders are provided as no-ops: a pure transition only lists the
// effects it asks for (checked as "writeDocument:armed", "sendBrief", …), it never runs them.
import { expect } from "vitest"
import { type SnapshotFrom, getNextSnapshot, initialTransition, transition } from "xstate"
import type { DriverFacts } from "../../../machines/driver.claim"
import { type Attestation, type CheckLogLine, type CheckRun, GOAL_DEBOUNCE_MS, type GoalLimits } from "../../../machines/goal/goal.gates"
import { type GoalEvent, goalMachine } from "../../../machines/goal/goal.machine"
import { MINUTE, type Overrides, T0, allow, arm, inputWith, limits, terms } from "./goal.fixtures"

export const machine = goalMachine.provide({ actions: { writeDocument: () => {}, sendBrief: () => {}, sendWrapUp: () => {} } })

export type Snapshot = SnapshotFrom<typeof goalMachine>
type LoopFacts = Partial<Omit<Extract<GoalEvent, { type: "loop.due" }>, "type" | "now">>

export const idle = (now: number): GoalEvent => ({ type: "session.idle", now })
/** The driver claim as process `me` read it: by default its own, live. */
export const claimed = (me: string, holder: string | null, holderAlive: boolean, until = T0 + 60 * MINUTE): DriverFacts => ({
  me,
  claim: holder === null ? null : { holder, until },
  holderAlive,
  now: 0,
})
export const busy: GoalEvent = { type: "session.busy" }
export const due = (now: number, facts: LoopFacts = {}): GoalEvent => ({
  type: "loop.due",
  now,
  speaker: "forge",
  draftPlan: false,
  spend: { cost: 0, tokens: 0 },
  ...facts,
  driver: { ...(facts.driver ?? claimed("p1", "p1", true)), now },
})
export const failed = (now: number): GoalEvent => ({ type: "loop.failed", now, error: "ECONNRESET" })
export const wrote: GoalEvent = { type: "goal.activity", kind: "writes" }
const checkLine: CheckLogLine = { at: "2023-11-14T22:14:00.000Z", run: "r1", revision: 1, item: 1, pass: true, ms: 120, label: "npm test", detail: "12 passed" }
export const checked: GoalEvent = { type: "goal.checked", entries: [checkLine] }
export const pause = (by: "user" | "model", blocker?: string): GoalEvent =>
  blocker === undefined ? { type: "goal.pause", by } : { type: "goal.pause", by, blocker }
export const discard = (by: "user" | "model", reason?: string): GoalEvent =>
  reason === undefined ? { type: "goal.discard", by } : { type: "goal.discard", by, reason }
export const resume = (fields: Partial<Omit<Extract<GoalEvent, { type: "goal.resume" }>, "type">> = {}): GoalEvent => ({
  type: "goal.resume",
  sessionId: "s3",
  draftPlan: false,
  now: T0 + 30 * MINUTE,
  addTurns: 0,
  addMinutes: 0,
  ...fields,
})
export const revise = ({ checkCount = 3, ...fields }: { checkCount?: number; limits?: GoalLimits; document?: string } = {}): GoalEvent => ({
  type: "goal.revise",
  contract: terms(["Login works", "Suite is green", "Docs updated"], checkCount),
  limits: { ...limits, maxTurns: 20 },
  document: "# Goal: login (revised)",
  ...fields,
})
export const allPass = (checkCount: number): CheckRun[] => Array.from({ length: checkCount }, (_, i) => ({ item: i + 1, pass: true }))
export const attestations: Attestation[] = [
  { criterion: "Login works", evidence: "login.test.ts: 3 passed" },
  { criterion: "  suite IS   green ", evidence: "npm test: 12 passed" },
]
export const complete = (fields: { revision?: number; results?: CheckRun[]; attestations?: Attestation[] } = {}): GoalEvent => ({
  type: "goal.complete",
  run: { revision: fields.revision ?? 1, results: fields.results ?? allPass(2) },
  attestations: fields.attestations ?? attestations,
})

/** Applies each event, asserting the machine accepts it. */
export function from(snapshot: Snapshot, ...events: GoalEvent[]): Snapshot {
  let next = snapshot
  for (const event of events) {
    expect(next.can(event), `${event.type} from ${JSON.stringify(next.value)}`).toBe(true)
    next = getNextSnapshot(machine, next, event)
  }
  return next
}
export const start = (overrides: Overrides = {}): Snapshot => initialTransition(machine, inputWith(overrides))[0]
export const run = (events: GoalEvent[], overrides: Overrides = {}): Snapshot => from(start(overrides), ...events)

/**
 * The effects a step asks for, in order: "writeDocument:<change>" or the action's name. Context updates are not
 * listed, nor a release of held wakes when none is held (it sends nothing; goal.machine.wakes.test.ts lists it).
 */
export function effectsOf(snapshot: Snapshot, event: GoalEvent): string[] {
  const [, actions] = transition(machine, snapshot, event)
  const sendsSomething = (action: (typeof actions)[number]) => action.type !== "releaseWakes" || (action.info.context as Snapshot["context"]).wakes.length > 0
  return actions.filter(sendsSomething).map((action) => {
    const change = (action.params as { change?: string } | undefined)?.change
    return change === undefined ? action.type : `${action.type}:${change}`
  })
}

/** The event is refused: `can` says no and neither the state nor the context moves. */
export function expectRefused(snapshot: Snapshot, event: GoalEvent): void {
  expect(snapshot.can(event), `${event.type} from ${JSON.stringify(snapshot.value)}`).toBe(false)
  const next = getNextSnapshot(machine, snapshot, event)
  expect(next.value).toEqual(snapshot.value)
  expect(next.context).toEqual(snapshot.context)
}

/** Armed at T0 by session s2. */
export const active = (overrides: Overrides = {}): Snapshot => run([arm, allow(1, T0)], overrides)
/** One loop cycle: the session goes idle at `at` and the debounce deadline passes. */
export const cycle = (snapshot: Snapshot, at: number, facts: LoopFacts = {}): Snapshot => from(snapshot, idle(at), due(at + GOAL_DEBOUNCE_MS, facts))
/** `n` continuation turns, each with a write, five seconds apart. */
export function turns(snapshot: Snapshot, n: number): Snapshot {
  let next = snapshot
  for (let i = 0; i < n; i++) next = from(cycle(next, T0 + (i + 1) * 5_000), wrote)
  return next
}
export const debouncing = (overrides: Overrides = {}) => from(active(overrides), idle(T0 + 1_000))
export const parked = () => from(debouncing(), due(T0 + 1_000 + GOAL_DEBOUNCE_MS, { speaker: "other" }))
export const completing = () => from(active(), complete())
