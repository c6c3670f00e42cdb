import { and, assertEvent, assign, emit, setup } from "xstate"
import { type DialogAnswerFields, isAnswerToOpenDialog, nextDialog } from "../dialog.gates"
import {
  type CriterionCheck,
  type PlanTaskState,
  hasPassingCheckPerCriterion,
  isApprovablePlan,
  isEveryTaskTicked,
  isOpenTask,
  isUserGatedDocumentStatus,
  isWriteBannedTool,
} from "./plan.gates"
import type { PlanMachineStatus } from "./plan.status"

// The plan lifecycle: decide first, execute later. The top-level state is the document's frontmatter status;
// the nested states only exist while a user dialog is open, so the dialog is the only road to approved and done.

/** Bumped whenever a change would make an older persisted snapshot unfit for this definition. */
export const PLAN_MACHINE_VERSION = "1"

export interface PlanInput {
  /** Workspace-relative path of the plan document; the instance id. */
  planPath: string
  sessionId: string | null
  tasks: PlanTaskState[]
  criteria: string[]
  /** The document the plan starts with: written by the `writeDocument` effect, never kept in the context. */
  document: string
}

/** Who asks for a change: the user's own command acts directly, the model's request may need the user's dialog. */
export type PlanRequester = "user" | "model"

/** A discard (or supersede) the model asked for while the plan was a draft, waiting on the user's dialog. */
export interface PendingDiscard {
  reason: string | null
  successor: string | null
}

export interface PlanContext extends Omit<PlanInput, "document"> {
  /** The checks a pending close is waiting on the user to confirm. */
  pendingChecks: CriterionCheck[] | null
  /** The discard a pending discard dialog is waiting on the user to confirm. */
  pendingDiscard: PendingDiscard | null
  /** Why the plan ended, for abandoned and superseded plans. */
  reason: string | null
  /** The document that took over a superseded plan's work. */
  successor: string | null
  /**
   * What the document says when that would pass a gate the user holds (approved, done): the plan stays where it is
   * until the user confirms through the dialog. Snapshots written before this field existed have none (read as null).
   */
  pendingDocument: PlanMachineStatus | null
  /** The number of the last dialog the plan opened (0: none yet); an answer must name the one open (dialog.gates.ts). */
  dialog: number
}

export type PlanEvent =
  /** `document` is the whole new document text, written by the `writeDocument` effect. */
  | { type: "plan.revise"; tasks: PlanTaskState[]; criteria: string[]; document: string }
  | { type: "plan.approve" }
  | { type: "plan.tick"; task: number }
  | { type: "plan.close"; checks: CriterionCheck[] }
  | { type: "plan.discard"; by: PlanRequester; reason?: string }
  | { type: "plan.supersede"; by: PlanRequester; successor: string; reason?: string }
  | { type: "plan.bind"; sessionId: string }
  | ({ type: "dialog.allow" } & DialogAnswerFields)
  | ({ type: "dialog.reject" } & DialogAnswerFields)
  /** The document on disk changed (a hand edit, `edit`, `sed`): its status, tasks and criteria as it now says. */
  | { type: "plan.document.changed"; status: PlanMachineStatus; tasks: PlanTaskState[]; criteria: string[] }
  /** Asked, never sent: `snapshot.can({ type: "tool.use", tool })` is the draft write-ban. */
  | { type: "tool.use"; tool: string }

export type PlanTag = "live" | "write-ban" | "awaiting-user"

export type PlanEmitted = { type: "tool.permitted"; tool: string }

/**
 * What a step changes in the plan's document, for the `writeDocument` effect: the document is the truth, so every
 * step that changes what it says writes it before the step is committed.
 */
export type PlanDocumentChange = "created" | "revised" | "approved" | "ticked" | "closed" | "abandoned" | "superseded" | "bound"

export const planMachine = setup({
  types: {
    context: {} as PlanContext,
    events: {} as PlanEvent,
    input: {} as PlanInput,
    tags: {} as PlanTag,
    emitted: {} as PlanEmitted,
  },
  guards: {
    isReadOnlyTool: ({ event }) => {
      assertEvent(event, "tool.use")
      return !isWriteBannedTool(event.tool)
    },
    isApprovable: ({ context }) => isApprovablePlan(context.tasks, context.criteria),
    isTaskOpen: ({ context, event }) => {
      assertEvent(event, "plan.tick")
      return isOpenTask(context.tasks, event.task)
    },
    isEveryTaskTicked: ({ context }) => isEveryTaskTicked(context.tasks),
    hasPassingCheckPerCriterion: ({ context, event }) => {
      assertEvent(event, "plan.close")
      return hasPassingCheckPerCriterion(context.criteria, event.checks)
    },
    canClose: and(["isEveryTaskTicked", "hasPassingCheckPerCriterion"]),
    hasSuccessor: ({ event }) => {
      assertEvent(event, "plan.supersede")
      return event.successor.trim() !== ""
    },
    isByUser: ({ event }) => {
      assertEvent(event, ["plan.discard", "plan.supersede"])
      return event.by === "user"
    },
    isByModel: ({ event }) => {
      assertEvent(event, ["plan.discard", "plan.supersede"])
      return event.by === "model"
    },
    canSupersedeByUser: and(["isByUser", "hasSuccessor"]),
    canSupersedeByModel: and(["isByModel", "hasSuccessor"]),
    isPendingSupersede: ({ context }) => (context.pendingDiscard?.successor ?? null) !== null,
    // An answer counts only for the dialog open now: one to a dialog that closed meanwhile is refused.
    isAnswerToOpenDialog: ({ context, event }) => {
      assertEvent(event, ["dialog.allow", "dialog.reject"])
      return isAnswerToOpenDialog({ open: context.dialog, answered: event.dialog })
    },
    isAnswerToPendingSupersede: and(["isAnswerToOpenDialog", "isPendingSupersede"]),
    // The direction of a document change: one that would pass a gate the user holds is held, never followed.
    isDocumentPassingUserGate: ({ event }, params: { from: PlanMachineStatus }) => {
      assertEvent(event, "plan.document.changed")
      return isUserGatedDocumentStatus(params.from, event.status)
    },
  },
  actions: {
    // A permitted tool use is an explicit transition: `can()` counts only transitions that do something.
    permitTool: emit(({ event }) => {
      assertEvent(event, "tool.use")
      return { type: "tool.permitted" as const, tool: event.tool }
    }),
    storeRevision: assign(({ event }) => {
      assertEvent(event, "plan.revise")
      return { tasks: event.tasks, criteria: event.criteria }
    }),
    tickTask: assign(({ context, event }) => {
      assertEvent(event, "plan.tick")
      return { tasks: context.tasks.map((t) => (t.number === event.task ? { ...t, ticked: true } : t)) }
    }),
    holdChecks: assign(({ event }) => {
      assertEvent(event, "plan.close")
      return { pendingChecks: event.checks }
    }),
    dropChecks: assign({ pendingChecks: null }),
    bindSession: assign(({ event }) => {
      assertEvent(event, "plan.bind")
      return { sessionId: event.sessionId }
    }),
    recordDiscard: assign(({ event }) => {
      assertEvent(event, ["plan.discard", "plan.supersede"])
      return { reason: event.reason ?? null, successor: event.type === "plan.supersede" ? event.successor : null, pendingChecks: null }
    }),
    holdDiscard: assign(({ event }) => {
      assertEvent(event, ["plan.discard", "plan.supersede"])
      return { pendingDiscard: { reason: event.reason ?? null, successor: event.type === "plan.supersede" ? event.successor : null } }
    }),
    dropDiscard: assign({ pendingDiscard: null }),
    holdDocumentStatus: assign(({ event }) => {
      assertEvent(event, "plan.document.changed")
      return { pendingDocument: event.status, tasks: event.tasks, criteria: event.criteria }
    }),
    followDocument: assign(({ event }) => {
      assertEvent(event, "plan.document.changed")
      return { pendingDocument: null, tasks: event.tasks, criteria: event.criteria }
    }),
    // Forge wrote the status itself: whatever the document said before is no longer pending.
    dropDocumentStatus: assign({ pendingDocument: null }),
    // Placeholder: each harness provides it (createPlanImplementations); the step is committed only once it succeeded.
    writeDocument: (_, _params: { change: PlanDocumentChange }) => {
      throw new Error("plan action writeDocument not provided")
    },
    // Every entry into a dialog state opens a new dialog, numbered so that its answer can name it.
    openDialog: assign({ dialog: ({ context }) => nextDialog(context.dialog) }),
    recordPendingDiscard: assign({
      reason: ({ context }) => context.pendingDiscard?.reason ?? null,
      successor: ({ context }) => context.pendingDiscard?.successor ?? null,
      pendingDiscard: null,
    }),
  },
}).createMachine({
  id: "plan",
  version: PLAN_MACHINE_VERSION,
  context: ({ input: { document: _document, ...input } }) => ({
    ...input,
    pendingChecks: null,
    pendingDiscard: null,
    reason: null,
    successor: null,
    pendingDocument: null,
    dialog: 0,
  }),
  initial: "draft",
  states: {
    draft: {
      tags: ["live", "write-ban"],
      // Only a new plan enters draft from outside: a restore or a reconcile resolves its state without entering it.
      entry: { type: "writeDocument", params: { change: "created" } },
      initial: "editing",
      on: {
        "tool.use": { guard: "isReadOnlyTool", actions: "permitTool" },
        "plan.bind": { actions: ["bindSession", { type: "writeDocument", params: { change: "bound" } }] },
        // A document that says approved or done is held for the user's approval. Any other status is followed:
        // nothing stays pending, and the host moves the plan where the document says (draft, abandoned, superseded).
        "plan.document.changed": [
          { guard: { type: "isDocumentPassingUserGate", params: { from: "draft" } }, actions: "holdDocumentStatus" },
          { actions: "followDocument" },
        ],
        // The user's own /plan discard acts at once, even while a dialog is open.
        "plan.discard": { guard: "isByUser", target: "abandoned", actions: ["recordDiscard", { type: "writeDocument", params: { change: "abandoned" } }] },
        "plan.supersede": {
          guard: "canSupersedeByUser",
          target: "superseded",
          actions: ["recordDiscard", { type: "writeDocument", params: { change: "superseded" } }],
        },
      },
      states: {
        editing: {
          on: {
            "plan.revise": { actions: ["storeRevision", { type: "writeDocument", params: { change: "revised" } }] },
            "plan.approve": { guard: "isApprovable", target: "confirming" },
            // The model's discard would lift its own ban: like approval, only the user's dialog lets it through.
            "plan.discard": { guard: "isByModel", target: "discarding", actions: "holdDiscard" },
            "plan.supersede": { guard: "canSupersedeByModel", target: "discarding", actions: "holdDiscard" },
          },
        },
        confirming: {
          tags: ["awaiting-user"],
          entry: "openDialog",
          on: {
            "dialog.allow": {
              guard: "isAnswerToOpenDialog",
              target: "#plan.approved",
              actions: ["dropDocumentStatus", { type: "writeDocument", params: { change: "approved" } }],
            },
            "dialog.reject": { guard: "isAnswerToOpenDialog", target: "editing" },
          },
        },
        discarding: {
          tags: ["awaiting-user"],
          entry: "openDialog",
          on: {
            "dialog.allow": [
              {
                guard: "isAnswerToPendingSupersede",
                target: "#plan.superseded",
                actions: ["recordPendingDiscard", { type: "writeDocument", params: { change: "superseded" } }],
              },
              {
                guard: "isAnswerToOpenDialog",
                target: "#plan.abandoned",
                actions: ["recordPendingDiscard", { type: "writeDocument", params: { change: "abandoned" } }],
              },
            ],
            "dialog.reject": { guard: "isAnswerToOpenDialog", target: "editing", actions: "dropDiscard" },
          },
        },
      },
    },
    approved: {
      tags: ["live"],
      initial: "working",
      on: {
        "tool.use": { actions: "permitTool" },
        "plan.bind": { actions: ["bindSession", { type: "writeDocument", params: { change: "bound" } }] },
        // A document that says done is held for the user's close dialog. Any other status is followed: nothing stays
        // pending, and the host moves the plan where the document says (approved, draft, abandoned, superseded).
        "plan.document.changed": [
          { guard: { type: "isDocumentPassingUserGate", params: { from: "approved" } }, actions: "holdDocumentStatus" },
          { actions: "followDocument" },
        ],
        // An approved plan bans nothing, so its discard lifts no ban: it needs no dialog, whoever asks.
        "plan.discard": { target: "abandoned", actions: ["recordDiscard", { type: "writeDocument", params: { change: "abandoned" } }] },
        "plan.supersede": {
          guard: "hasSuccessor",
          target: "superseded",
          actions: ["recordDiscard", { type: "writeDocument", params: { change: "superseded" } }],
        },
      },
      states: {
        working: {
          on: {
            "plan.tick": { guard: "isTaskOpen", actions: ["tickTask", { type: "writeDocument", params: { change: "ticked" } }] },
            "plan.close": { guard: "canClose", target: "confirming", actions: "holdChecks" },
          },
        },
        confirming: {
          tags: ["awaiting-user"],
          entry: "openDialog",
          on: {
            "dialog.allow": { guard: "isAnswerToOpenDialog", target: "#plan.done", actions: { type: "writeDocument", params: { change: "closed" } } },
            "dialog.reject": { guard: "isAnswerToOpenDialog", target: "working", actions: "dropChecks" },
          },
        },
      },
    },
    done: { type: "final" },
    abandoned: { type: "final" },
    superseded: { type: "final" },
  },
})

export type PlanMachine = typeof planMachine
