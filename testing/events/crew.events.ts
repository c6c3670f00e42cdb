import { type SnapshotFrom, transition } from "xstate"
import type { CrewBirthFacts, CrewVerdict } from "../../machines/crew/crew.gates"
import { type CrewEvent, type CrewInput, type CrewRegistration, crewMachine } from "../../machines/crew/crew.machine"
import { type CrewStatus, crewStatusOf } from "../../machines/crew/crew.status"
import type { ModelWorldByState } from "../model.world"

// The crew's model world. Two crews live: one registered pending (crew_begin {objective, subtasks}), and one born
// armed under the session's active goal (crew_begin {objective, subtasks, execution: "waves"}, governance on). The
// others end at the birth gate: execution asked in the registering call without the goal (waves, goal), execution
// "goal" under the goal, a repeated subtask title, two subtasks owning one file, a second crew while the session's
// crew is live, and no worker to dispatch. Each event says whether the session's goal governs it (`governed`).
//
// crew.dispatch is only ever asked (a task belt asks `can()`). dialog.allow / dialog.reject name the dialog they
// answer: in a dialog state the open one and a stale one of each (the dialog before it, which another process
// closed); elsewhere both are refused. Every dialog opened is counted in the context, so the dialog states repeat
// without end (reject, ask again): the world opens at most MAX_DIALOGS, enough for a dialog state entered twice.

type Snapshot = SnapshotFrom<typeof crewMachine>

/** What a harness names its own way (Forge's model test passes its SUT's). */
export interface CrewWorldOptions {
  /** The session that registers the crew and makes every crew call. */
  session?: string
  /** The session's earlier crew, still live, where a config's birth facts name one. */
  earlierCrew?: string
}

const T0 = Date.parse("2026-11-30T03:00:00.000Z")

const SUBTASKS: CrewInput["subtasks"] = [
  { title: "Write the parser", agent: "forge-coder", files: ["src/parser.ts", "src/grammar.ts"] },
  { title: "Survey prior art", agent: null, files: [] },
]

/** A session without a live crew, and the two workers of a project's pool. */
const FREE: CrewBirthFacts = { liveCrew: null, workers: { dispatchable: 2, findings: [] } }

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

/**
 * The record's status line rewritten, where no dialog is open: to each status that would pass a gate the user holds
 * from here, to abandoned (followed), and back to the crew's own status while one is held. Only a change the record
 * makes is offered (the service hands the machine nothing when the record says what the crew holds already).
 */
function recordEdits(state: Snapshot): CrewEvent[] {
  if (state.status !== "active" || state.hasTag("awaiting-user") || state.matches("registering")) return []
  const status = crewStatusOf(state.value)
  const holds = state.context.pendingDocument ?? status
  const tos: CrewStatus[] = status === "pending" ? ["executing", "closed", "abandoned"] : ["closed", "abandoned"]
  const back: CrewStatus[] = state.context.pendingDocument === null ? [] : [status]
  return [...tos, ...back].filter((to) => to !== holds).map((to): CrewEvent => ({ type: "crew.document.changed", status: to }))
}

/** The world's events in a state: the dialog answers name the open dialog (or a closed one), opening stops at MAX_DIALOGS. */
function eventsIn(state: Snapshot): CrewEvent[] {
  const open = state.context.dialog
  const answers: CrewEvent[] = [
    { type: "dialog.allow", dialog: open },
    { type: "dialog.reject", dialog: open },
  ]
  if (state.hasTag("awaiting-user")) answers.push({ type: "dialog.allow", dialog: open - 1 }, { type: "dialog.reject", dialog: open - 1 })
  const opensOneTooMany = (event: CrewEvent) =>
    open >= MAX_DIALOGS && state.status === "active" && transition(crewMachine, state, event)[0].context.dialog > open
  return [...eventCases.filter((event) => !opensOneTooMany(event)), ...answers, ...recordEdits(state)]
}

export function crewModel({
  session = "ses_model",
  earlierCrew = ".opencode/crew/2026-11-30-survey-the-field.md",
}: CrewWorldOptions = {}): ModelWorldByState<typeof crewMachine> {
  const inputFor = (registration: CrewRegistration, subtasks = SUBTASKS, birth = FREE): CrewInput => ({
    crewPath: ".opencode/crew/2026-11-30-ship-the-parser.md",
    sessionId: session,
    objective: "Ship the parser",
    subtasks,
    lineage: ".opencode/plan/2026-11-29-parser.md",
    registration,
    birth,
    createdAt: T0,
    record: "",
  })
  return {
    machine: crewMachine,
    configs: [
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
        input: inputFor({ execution: "waves", governed: true }, SUBTASKS, { ...FREE, liveCrew: { crewPath: earlierCrew, status: "pending" } }),
      },
      {
        name: "refused: no worker to dispatch",
        input: inputFor({ execution: null, governed: false }, SUBTASKS, {
          liveCrew: null,
          workers: { dispatchable: 0, findings: ["forge.json: agents: expected an object"] },
        }),
      },
    ],
    events: eventsIn,
    // The answers are offered relative to the open dialog, so states that differ only in how many dialogs were opened
    // behave alike: their extensions are replayed once.
    extensionKey: ({ value, context: { dialog: _count, ...context } }) => JSON.stringify({ value, context }),
    limit: 5000,
  }
}
