import { transition } from "xstate"
import { type GoalBirthFacts, type GoalEvent, type GoalInput, goalMachine } from "../../machines/goal/goal.machine"
import type { ModelWorldByState } from "../model.world"
import { type GoalSnapshot, type GoalWorldOptions, T0, goalSamples, limits, terms } from "./goal.samples"
import { audits, loop, requests } from "./goal.worlds"

export type { GoalWorldOptions } from "./goal.samples"

// The goal's model world: four configs, each a world of its own (goal.worlds.ts), told apart by the goal's objective.
// In "requests" the user and the model ask and answer dialogs and the session never goes idle; in "loop" the goal is
// armed at once and the continuation loop runs; in "audit" a verified completion goes to an auditor session; the
// fourth ends at the birth gate: arm asked beside the session's live goal.

/**
 * Every dialog the goal opens has a new number, so a goal that asks again and again would never reach a state it was
 * in before: the worlds open at most this many dialogs on a path, enough for every dialog transition (an arm, then a
 * completion, a resume or a discard) and for a dialog state entered twice (its first dialog's late answer refused).
 */
const MAX_DIALOGS = 2

const pathOf = (objective: string) => `.opencode/goal/2026-11-30-${objective.toLowerCase()}.md`
/** The goal as goal_write writes it at T0 (its path follows from the objective and the date): by default arm=false. */
const inputFor = (objective: string, birth: GoalBirthFacts = { armAsked: false, liveGoal: null }): GoalInput => ({
  goalPath: pathOf(objective),
  sessionId: null,
  contract: terms(objective),
  limits,
  createdAt: T0,
  document: "",
  birth,
})

/** What a world offers, without the events that would open a dialog once the goal has opened MAX_DIALOGS. */
function withinDialogs(state: GoalSnapshot, events: GoalEvent[]): GoalEvent[] {
  if (state.context.dialog < MAX_DIALOGS || state.hasTag("awaiting-user")) return events
  return events.filter((event) => !transition(goalMachine, state, event)[0].hasTag("awaiting-user"))
}

export function goalModel(options: GoalWorldOptions = {}): ModelWorldByState<typeof goalMachine> {
  const o: Required<GoalWorldOptions> = {
    session: "ses_model",
    driver: "model-process",
    sendFailure: "ECONNRESET",
    heldObjective: "Held",
    auditBase: "tree-at-arm",
    auditFailure: (session) =>
      session === null
        ? "the auditor session could not be opened: ECONNREFUSED"
        : `the auditor session ${session} did not finish: its turn failed: APIError: overloaded`,
    ...options,
  }
  const k = goalSamples(o)
  const worlds: Record<string, { events: (state: GoalSnapshot) => GoalEvent[]; key: (state: GoalSnapshot) => string }> = {
    // Requests: only the revision (the contract) and the state decide what a request does; the rest is history.
    Requests: { events: (state) => requests(k, state), key: ({ value, context }) => JSON.stringify([value, context.revision, context.pendingDocument]) },
    // Loop: every counter the decision reads is context, so every state is its own.
    Loop: { events: (state) => loop(k, state), key: ({ value, context }) => JSON.stringify([value, context]) },
    // Audit: the audit and the dialog decide; the loop never runs.
    Audit: { events: (state) => audits(k, state), key: ({ value, context }) => JSON.stringify([value, context.audit, context.dialog]) },
    // Refused at birth: never created, so there is nothing to ask it.
    Refused: { events: () => [], key: ({ value }) => JSON.stringify(value) },
  }
  const worldOf = (state: GoalSnapshot) => {
    const world = worlds[state.context.contract.objective]
    if (world === undefined) throw new Error(`no world for the goal "${state.context.contract.objective}"`)
    return world
  }
  /** goal_write arm=true while the session's goal is active. */
  const refusedBirth: GoalBirthFacts = { armAsked: true, liveGoal: { path: pathOf(o.heldObjective), status: "active" } }
  return {
    machine: goalMachine,
    configs: [
      { name: "requests", input: inputFor("Requests") },
      { name: "loop", input: inputFor("Loop") },
      { name: "audit: completion needs a clean audit too", input: { ...inputFor("Audit"), audit: true } },
      { name: "refused: arm asked beside the session's live goal", input: inputFor("Refused", refusedBirth) },
    ],
    events: (state) => withinDialogs(state, worldOf(state).events(state)),
    extensionKey: (state) => worldOf(state).key(state),
  }
}
