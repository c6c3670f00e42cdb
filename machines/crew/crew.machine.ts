import { and, assertEvent, assign, emit, setup } from "xstate"
import { type DialogAnswerFields, isAnswerToOpenDialog, nextDialog } from "../dialog.gates"
import {
  type CrewBirthFacts,
  type CrewSubtask,
  type CrewVerdict,
  hasLiveCrew,
  isCompleteReport,
  isUserGatedCrewDocumentStatus,
  lacksDispatchableWorker,
  registrationProblems,
} from "./crew.gates"
import type { CrewStatus } from "./crew.status"

// The crew lifecycle: a declared plan of subtasks run as parallel subagent waves. Registration pends: every task
// dispatch of the session is refused until the user arms the waves (or converts the crew to a goal, or abandons it).
// The close cross-checks the report against the declared plan. Under an active goal of the session the goal's own arm
// is the user's authorization: a crew is born armed, and its close and abandon need no dialog. A registration the
// machine refuses (an unfit declared plan, or an execution asked in the same call without the goal's authorization)
// ends at birth in `refused`, and the host commits nothing of it.

/** Bumped whenever a change would make an older persisted snapshot unfit for this definition. */
export const CREW_MACHINE_VERSION = "2"

/** How a crew_begin call registered the crew: what the birth gate decides on. */
export interface CrewRegistration {
  /** The execution asked in the registering call itself: legal only as "waves", and only under the session's goal. */
  execution: "waves" | "goal" | null
  /** Whether an active goal owned by the session governed it then (the goal machine's answer). */
  governed: boolean
}

export interface CrewInput {
  /** Workspace-relative path of the crew record; the instance id. */
  crewPath: string
  sessionId: string
  objective: string
  subtasks: CrewSubtask[]
  /** The plan (or other artifact) the crew's macro contract descends from, as the orchestrator named it. */
  lineage: string | null
  registration: CrewRegistration
  birth: CrewBirthFacts
  createdAt: number
  /** The record the crew starts with: written by the `writeRecord` effect, never kept in the context. */
  record: string
}

export interface CrewContext extends Omit<CrewInput, "record" | "birth"> {
  /** The facts the birth gate decided on; null in records written before they were kept (past their birth). */
  birth: CrewBirthFacts | null
  /** The report a pending close dialog is waiting on the user to confirm. */
  pendingReport: CrewVerdict[] | null
  /** The reason a pending abandon dialog is waiting on the user to confirm. */
  pendingReason: string | null
  /** The verdicts the crew closed with. */
  report: CrewVerdict[] | null
  /** Why the crew was abandoned. */
  reason: string | null
  /**
   * What the record says when that would pass a gate the user holds (closed; executing for a pending crew): the crew
   * stays where it is until the user confirms through the dialog. Older records are upgraded to null.
   */
  pendingDocument: CrewStatus | null
  /** The number of the last dialog the crew opened (machines/dialog.gates.ts); 0 before the first. */
  dialog: number
}

/** `governed`: an active goal owned by the session governs it, so the goal's arm is the user's authorization. */
export type CrewEvent =
  | { type: "crew.arm"; governed: boolean }
  | { type: "crew.convert"; governed: boolean }
  | { type: "crew.close"; report: CrewVerdict[]; governed: boolean }
  | { type: "crew.abandon"; reason: string; governed: boolean }
  /** A new opencode process took the crew over from its record: an open dialog died with the old one. */
  | { type: "crew.restored" }
  | ({ type: "dialog.allow" } & DialogAnswerFields)
  | ({ type: "dialog.reject" } & DialogAnswerFields)
  /** The record on disk says this status (a hand edit, `edit`, `sed`): held, or nothing new. */
  | { type: "crew.document.changed"; status: CrewStatus }
  /** Asked, never sent: `snapshot.can({ type: "crew.dispatch" })` is the pending belt on the task tool. */
  | { type: "crew.dispatch" }

export type CrewTag = "live" | "dispatch-belt" | "awaiting-user"

export type CrewEmitted = { type: "dispatch.permitted" }

/** What a step changes in the crew record, for the `writeRecord` effect. */
export type CrewRecordChange = "created" | "armed" | "converted" | "closed" | "abandoned" | "restored"

const created = { type: "writeRecord", params: { change: "created" } } as const

export const crewMachine = setup({
  types: {
    context: {} as CrewContext,
    events: {} as CrewEvent,
    input: {} as CrewInput,
    tags: {} as CrewTag,
    emitted: {} as CrewEmitted,
  },
  guards: {
    hasDeclaredPlan: ({ context }) => registrationProblems(context.objective, context.subtasks).length === 0,
    // The session and the workspace as the service read them just before the birth.
    isSessionFreeOfCrews: ({ context }) => !hasLiveCrew(context.birth),
    hasDispatchableWorker: ({ context }) => !lacksDispatchableWorker(context.birth),
    canBeBorn: and(["hasDeclaredPlan", "isSessionFreeOfCrews", "hasDispatchableWorker"]),
    // Registering and arming in one call is the goal's authorization alone; otherwise the user chooses after seeing the plan.
    isArmedByGoal: ({ context: { registration } }) => registration.execution === "waves" && registration.governed,
    isRegistrationOnly: ({ context }) => context.registration.execution === null,
    canBeBornArmed: and(["canBeBorn", "isArmedByGoal"]),
    canPend: and(["canBeBorn", "isRegistrationOnly"]),
    isGoverned: ({ event }) => {
      assertEvent(event, ["crew.arm", "crew.convert", "crew.close", "crew.abandon"])
      return event.governed
    },
    isNotGoverned: ({ event }) => {
      assertEvent(event, ["crew.arm", "crew.convert", "crew.close", "crew.abandon"])
      return !event.governed
    },
    isCompleteReport: ({ context, event }) => {
      assertEvent(event, "crew.close")
      return isCompleteReport(context.subtasks, event.report)
    },
    canCloseGoverned: and(["isCompleteReport", "isGoverned"]),
    // The direction of a record change: one that would pass a gate the user holds is held, never followed.
    isDocumentPassingUserGate: ({ event }, params: { from: CrewStatus }) => {
      assertEvent(event, "crew.document.changed")
      return isUserGatedCrewDocumentStatus(params.from, event.status)
    },
    isDocumentAbandoned: ({ event }) => {
      assertEvent(event, "crew.document.changed")
      return event.status === "abandoned"
    },
    // An answer counts only for the dialog open now: one that closed meanwhile (another process) is refused.
    isAnswerToOpenDialog: ({ context, event }) => {
      assertEvent(event, ["dialog.allow", "dialog.reject"])
      return isAnswerToOpenDialog({ open: context.dialog, answered: event.dialog })
    },
  },
  actions: {
    // Every entry into a dialog state opens a new dialog: two dialogs in the same state are told apart.
    openDialog: assign({ dialog: ({ context }) => nextDialog(context.dialog) }),
    // A permitted dispatch is an explicit transition: `can()` counts only transitions that do something.
    permitDispatch: emit({ type: "dispatch.permitted" as const }),
    holdReport: assign(({ event }) => {
      assertEvent(event, "crew.close")
      return { pendingReport: event.report }
    }),
    recordReport: assign(({ event }) => {
      assertEvent(event, "crew.close")
      return { report: event.report, pendingReport: null }
    }),
    recordPendingReport: assign({ report: ({ context }) => context.pendingReport, pendingReport: null }),
    holdReason: assign(({ event }) => {
      assertEvent(event, "crew.abandon")
      return { pendingReason: event.reason }
    }),
    recordReason: assign(({ event }) => {
      assertEvent(event, "crew.abandon")
      return { reason: event.reason, pendingReason: null }
    }),
    recordPendingReason: assign({ reason: ({ context }) => context.pendingReason, pendingReason: null }),
    // The record says abandoned: it only tightens, so it is followed as a governed abandon would be.
    recordDocumentReason: assign({ reason: "the crew record says abandoned", pendingReason: null, pendingReport: null }),
    dropPending: assign({ pendingReport: null, pendingReason: null }),
    holdDocumentStatus: assign(({ event }) => {
      assertEvent(event, "crew.document.changed")
      return { pendingDocument: event.status }
    }),
    // The record says what the crew is again, or Forge wrote the status itself: nothing is pending any more.
    dropDocumentStatus: assign({ pendingDocument: null }),
    // Placeholder: each harness provides it (createCrewImplementations); the step is committed only once it succeeded.
    writeRecord: (_, _params: { change: CrewRecordChange }) => {
      throw new Error("crew action writeRecord not provided")
    },
  },
}).createMachine({
  id: "crew",
  version: CREW_MACHINE_VERSION,
  context: ({ input: { record: _record, ...input } }) => ({
    ...input,
    pendingReport: null,
    pendingReason: null,
    report: null,
    reason: null,
    pendingDocument: null,
    dialog: 0,
  }),
  initial: "registering",
  states: {
    // Only a new crew passes here: the birth gate. The record is written, then the crew pends, or starts at once under
    // a goal (its record is written as executing then: born armed in the same write as its creation).
    registering: {
      always: [
        { guard: "canBeBornArmed", target: "executing", actions: created },
        { guard: "canPend", target: "pending", actions: created },
        { target: "refused" },
      ],
    },
    pending: {
      tags: ["live", "dispatch-belt"],
      initial: "standby",
      on: {
        "crew.restored": { target: ".standby", actions: ["dropPending", { type: "writeRecord", params: { change: "restored" } }] },
        // A record that says executing or closed is held for the user's dialog; abandoned is followed (it only
        // tightens); anything else holds nothing.
        "crew.document.changed": [
          { guard: { type: "isDocumentPassingUserGate", params: { from: "pending" } }, actions: "holdDocumentStatus" },
          {
            guard: "isDocumentAbandoned",
            target: "#crew.abandoned",
            actions: ["recordDocumentReason", { type: "writeRecord", params: { change: "abandoned" } }],
          },
          { actions: "dropDocumentStatus" },
        ],
      },
      states: {
        standby: {
          on: {
            "crew.arm": [
              { guard: "isGoverned", target: "#crew.executing", actions: { type: "writeRecord", params: { change: "armed" } } },
              { target: "arming" },
            ],
            // Under a goal the crew is governed already: converting it to a goal is refused.
            "crew.convert": { guard: "isNotGoverned", target: "#crew.converted", actions: { type: "writeRecord", params: { change: "converted" } } },
            "crew.abandon": [
              { guard: "isGoverned", target: "#crew.abandoned", actions: ["recordReason", { type: "writeRecord", params: { change: "abandoned" } }] },
              { target: "abandoning", actions: "holdReason" },
            ],
          },
        },
        arming: {
          tags: ["awaiting-user"],
          entry: "openDialog",
          on: {
            "dialog.allow": { guard: "isAnswerToOpenDialog", target: "#crew.executing", actions: { type: "writeRecord", params: { change: "armed" } } },
            "dialog.reject": { guard: "isAnswerToOpenDialog", target: "standby" },
          },
        },
        abandoning: {
          tags: ["awaiting-user"],
          entry: "openDialog",
          on: {
            "dialog.allow": {
              guard: "isAnswerToOpenDialog",
              target: "#crew.abandoned",
              actions: ["recordPendingReason", { type: "writeRecord", params: { change: "abandoned" } }],
            },
            "dialog.reject": { guard: "isAnswerToOpenDialog", target: "standby", actions: "dropPending" },
          },
        },
      },
    },
    executing: {
      tags: ["live"],
      // Every road into executing writes the record's status: whatever it said before is no longer pending.
      entry: "dropDocumentStatus",
      initial: "working",
      on: {
        "crew.dispatch": { actions: "permitDispatch" },
        "crew.restored": { target: ".working", actions: ["dropPending", { type: "writeRecord", params: { change: "restored" } }] },
        // A record that says closed is held for the close dialog; abandoned is followed; anything else holds nothing.
        "crew.document.changed": [
          { guard: { type: "isDocumentPassingUserGate", params: { from: "executing" } }, actions: "holdDocumentStatus" },
          {
            guard: "isDocumentAbandoned",
            target: "#crew.abandoned",
            actions: ["recordDocumentReason", { type: "writeRecord", params: { change: "abandoned" } }],
          },
          { actions: "dropDocumentStatus" },
        ],
      },
      states: {
        working: {
          on: {
            "crew.close": [
              { guard: "canCloseGoverned", target: "#crew.closed", actions: ["recordReport", { type: "writeRecord", params: { change: "closed" } }] },
              { guard: "isCompleteReport", target: "closing", actions: "holdReport" },
            ],
            "crew.abandon": [
              { guard: "isGoverned", target: "#crew.abandoned", actions: ["recordReason", { type: "writeRecord", params: { change: "abandoned" } }] },
              { target: "abandoning", actions: "holdReason" },
            ],
          },
        },
        closing: {
          tags: ["awaiting-user"],
          entry: "openDialog",
          on: {
            "dialog.allow": {
              guard: "isAnswerToOpenDialog",
              target: "#crew.closed",
              actions: ["recordPendingReport", { type: "writeRecord", params: { change: "closed" } }],
            },
            "dialog.reject": { guard: "isAnswerToOpenDialog", target: "working", actions: "dropPending" },
          },
        },
        abandoning: {
          tags: ["awaiting-user"],
          entry: "openDialog",
          on: {
            "dialog.allow": {
              guard: "isAnswerToOpenDialog",
              target: "#crew.abandoned",
              actions: ["recordPendingReason", { type: "writeRecord", params: { change: "abandoned" } }],
            },
            "dialog.reject": { guard: "isAnswerToOpenDialog", target: "working", actions: "dropPending" },
          },
        },
      },
    },
    closed: { type: "final" },
    abandoned: { type: "final" },
    converted: { type: "final" },
    // A registration the birth gate refused: never recorded, no record written.
    refused: { type: "final" },
  },
})

export type CrewMachine = typeof crewMachine
