import { describe, expect, it } from "vitest"
import { type SnapshotFrom, transition } from "xstate"
import { createTestModel } from "xstate/graph"
import { type CrewStatus, crewStatusOf } from "../../machines/crew/crew.status"
import type { CrewBirthFacts, CrewVerdict } from "../../machines/crew/crew.gates"
import { type CrewEvent, type CrewInput, type CrewRegistration, crewMachine } from "../../machines/crew/crew.machine"
import { SESSION, startCrewSut } from "./crew.sut"
import { describeModel } from "../../testing"

// Paths generated from the crew machine drive the real CrewService on the workspace's one LifecycleHost (SQLite in a
// temp workspace) writing real crew records through FsCrewFiles; at every step service, record (status, execution,
// History) and database row and log must agree with the model (crew.agreement.ts). Fakes only at the edges: the
// clock, the roster (two dispatchable workers) and the goal's governance (the SUT sets it from each event's
// `governed`).
//
// Two configs live: a crew registered pending (crew_begin {objective, subtasks}), and one born armed under the
// session's active goal (crew_begin {objective, subtasks, execution: "waves"}, governance on). Four more end at the
// birth gate: execution asked in the registering call without the goal (waves, goal), execution "goal" under the goal,
// a declared plan with a repeated title, a second crew while the session's crew is live (the SUT registers that one
// first, through the same service, and abandons it after the refusal), and no worker to dispatch (the SUT's roster
// says none). Nothing of them is written or recorded.
//
// Reached through the service's side roads, or asked only:
// - crew.dispatch is never sent: the task belt asks `can()` (CrewService.dispatchRefusal); the SUT replays it as that
//   question, and coverage counts it like a sent event.
// - crew.restored is a real restart: the process closes (an open dialog dies unanswered), a new one composes the
//   workspace on the same folder and database, defines the crew lifecycle again and runs restoreCrews.
// - dialog.allow / dialog.reject name the dialog they answer. In a dialog state the model offers the answers to the
//   open dialog (the SUT answers the dialog the last crew call holds open) and a stale one of each to the dialog
//   before it (the SUT dispatches it through the service's lifecycle, as a user's answer arriving from a dialog that
//   another process closed meanwhile would be: refused, the open dialog untouched). Elsewhere both are refused.
// - Every dialog opened is counted in the context, so the dialog states repeat without end (reject, ask again): the
//   model opens at most MAX_DIALOGS, enough for a dialog state entered twice.

const T0 = Date.parse("2026-11-30T03:00:00.000Z")
/** The session's earlier crew, registered by the SUT (crew.sut.ts EARLIER_OBJECTIVE) where a path's birth facts name it. */
const EARLIER_CREW = ".opencode/crew/2026-11-30-survey-the-field.md"

const SUBTASKS: CrewInput["subtasks"] = [
  { title: "Write the parser", agent: "forge-coder", files: ["src/parser.ts", "src/grammar.ts"] },
  { title: "Survey prior art", agent: null, files: [] },
]

/** A session without a live crew, and the two workers of the SUT's project pool. */
const FREE: CrewBirthFacts = { liveCrew: null, workers: { dispatchable: 2, findings: [] } }

const inputFor = (registration: CrewRegistration, subtasks = SUBTASKS, birth = FREE): CrewInput => ({
  crewPath: ".opencode/crew/2026-11-30-ship-the-parser.md",
  sessionId: SESSION,
  objective: "Ship the parser",
  subtasks,
  lineage: ".opencode/plan/2026-11-29-parser.md",
  registration,
  birth,
  createdAt: T0,
  record: "",
})

const configs = [
  { name: "born pending", input: inputFor({ execution: null, governed: false }) },
  { name: "born armed under a goal", input: inputFor({ execution: "waves", governed: true }) },
  { name: "refused: waves asked without a goal", input: inputFor({ execution: "waves", governed: false }) },
  { name: "refused: goal asked without a goal", input: inputFor({ execution: "goal", governed: false }) },
  { name: "refused: goal asked under a goal", input: inputFor({ execution: "goal", governed: true }) },
  {
    name: "refused: a repeated subtask title",
    input: inputFor({ execution: null, governed: false }, [...SUBTASKS, { title: "write  the parser", agent: null, files: [] }]),
  },
  {
    name: "refused: two subtasks own one file",
    input: inputFor({ execution: null, governed: false }, [...SUBTASKS, { title: "Write the grammar", agent: null, files: ["./src/grammar.ts"] }]),
  },
  {
    name: "refused: the session's crew is still live",
    input: inputFor({ execution: "waves", governed: true }, SUBTASKS, { ...FREE, liveCrew: { crewPath: EARLIER_CREW, status: "pending" } }),
  },
  {
    name: "refused: no worker to dispatch",
    input: inputFor({ execution: null, governed: false }, SUBTASKS, {
      liveCrew: null,
      workers: { dispatchable: 0, findings: ["forge.json: agents: expected an object"] },
    }),
  },
]

/** One PASS and one FAIL with both failure reports: the report closes the crew. */
const complete: CrewVerdict[] = [
  { subtask: "Write the parser", verdict: "PASS", evidence: "npm test: 40 passed", failures: [] },
  { subtask: "survey  prior art", verdict: "FAIL", evidence: "no access to the papers", failures: ["first: paywall", "retry: paywall again"] },
]
/** Reports a subtask the crew never declared: the close gate refuses it. */
const undeclared: CrewVerdict[] = [...complete, { subtask: "Refactor the lexer", verdict: "PASS", evidence: "done on the side", failures: [] }]

const eventCases: CrewEvent[] = [
  { type: "crew.arm", governed: false },
  { type: "crew.arm", governed: true },
  { type: "crew.convert", governed: false },
  { type: "crew.convert", governed: true },
  { type: "crew.close", report: complete, governed: false },
  { type: "crew.close", report: complete, governed: true },
  { type: "crew.close", report: undeclared, governed: false },
  { type: "crew.close", report: undeclared, governed: true },
  { type: "crew.abandon", reason: "wrong decomposition", governed: false },
  { type: "crew.abandon", reason: "re-shard under the goal", governed: true },
  { type: "crew.restored" },
  { type: "crew.dispatch" },
]

/** Dialogs a path opens at most: the numbers otherwise grow without end, and with them the states. */
const MAX_DIALOGS = 2

/** The world's events in a state: the dialog answers name the open dialog (or a closed one), opening stops at MAX_DIALOGS. */
function eventsIn(state: SnapshotFrom<typeof crewMachine>): CrewEvent[] {
  const open = state.context.dialog
  const answers: CrewEvent[] = state.hasTag("awaiting-user")
    ? [
        { type: "dialog.allow", dialog: open },
        { type: "dialog.reject", dialog: open },
        { type: "dialog.allow", dialog: open - 1 },
        { type: "dialog.reject", dialog: open - 1 },
      ]
    : [
        { type: "dialog.allow", dialog: open },
        { type: "dialog.reject", dialog: open },
      ]
  const opensOneTooMany = (event: CrewEvent) =>
    open >= MAX_DIALOGS && state.status === "active" && transition(crewMachine, state, event)[0].context.dialog > open
  return [...eventCases.filter((event) => !opensOneTooMany(event)), ...answers, ...recordEdits(state)]
}

describe("crew machine", () => {
  it("reaches every state of the machine from the configs", () => {
    const reached = new Set<string>()
    for (const { input } of configs) {
      const paths = createTestModel(crewMachine, { input, events: eventsIn }).getShortestPaths({
        limit: 5000,
        allowDuplicatePaths: true,
      })
      for (const p of paths) reached.add(JSON.stringify(p.state.value))
    }
    for (const value of [
      { pending: "standby" },
      { pending: "arming" },
      { pending: "abandoning" },
      { executing: "working" },
      { executing: "closing" },
      { executing: "abandoning" },
      "closed",
      "abandoned",
      "converted",
      "refused",
    ]) {
      expect(reached).toContain(JSON.stringify(value))
    }
  })
})

/**
 * The record's status line rewritten (issue 23 §1b), where no dialog is open: to each status that would pass a gate
 * the user holds from here, to abandoned (followed), and back to the crew's own status while one is held. Only a change the record makes is
 * offered (the service hands the machine nothing when the record says what the crew holds already).
 */
function recordEdits(state: SnapshotFrom<typeof crewMachine>): CrewEvent[] {
  if (state.status !== "active" || state.hasTag("awaiting-user") || state.matches("registering")) return []
  const status = crewStatusOf(state.value)
  const holds = state.context.pendingDocument ?? status
  const tos: CrewStatus[] = status === "pending" ? ["executing", "closed", "abandoned"] : ["closed", "abandoned"]
  const back: CrewStatus[] = state.context.pendingDocument === null ? [] : [status]
  return [...tos, ...back].filter((to) => to !== holds).map((to): CrewEvent => ({ type: "crew.document.changed", status: to }))
}

describeModel({
  machine: crewMachine,
  configs,
  events: eventsIn,
  // The answers are offered relative to the open dialog, so states that differ only in how many dialogs were opened
  // behave alike: their extensions are replayed once.
  extensionKey: ({ value, context: { dialog: _count, ...context } }) => JSON.stringify({ value, context }),
  start: startCrewSut,
  limit: 5000,
})
