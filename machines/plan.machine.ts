import { and, assign, emit, setup } from "xstate"
import {
  type CriterionCheck,
  type PlanTaskState,
  hasPassingCheckPerCriterion,
  isApprovablePlan,
  isEveryTaskTicked,
  isOpenTask,
  isWriteBannedTool,
} from "./plan.gates"

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
}

export interface PlanContext extends PlanInput {
  /** The checks a pending close is waiting on the user to confirm. */
  pendingChecks: CriterionCheck[] | null
  /** Why the plan ended, for abandoned and superseded plans. */
  reason: string | null
  /** The document that took over a superseded plan's work. */
  successor: string | null
}

export type PlanEvent =
  | { type: "plan.revise"; tasks: PlanTaskState[]; criteria: string[] }
  | { type: "plan.approve" }
  | { type: "plan.tick"; task: number }
  | { type: "plan.close"; checks: CriterionCheck[] }
  | { type: "plan.discard"; reason?: string }
  | { type: "plan.supersede"; successor: string; reason?: string }
  | { type: "plan.bind"; sessionId: string }
  | { type: "dialog.allow" }
  | { type: "dialog.reject" }
  /** Asked, never sent: `snapshot.can({ type: "tool.use", tool })` is the draft write-ban. */
  | { type: "tool.use"; tool: string }

export type PlanTag = "live" | "write-ban" | "awaiting-user"

export type PlanEmitted = { type: "tool.permitted"; tool: string }

export const planMachine = setup({
  types: {
    context: {} as PlanContext,
    events: {} as PlanEvent,
    input: {} as PlanInput,
    tags: {} as PlanTag,
    emitted: {} as PlanEmitted,
  },
  guards: {
    isReadOnlyTool: ({ event }) => event.type === "tool.use" && !isWriteBannedTool(event.tool),
    isApprovable: ({ context }) => isApprovablePlan(context.tasks, context.criteria),
    isTaskOpen: ({ context, event }) => event.type === "plan.tick" && isOpenTask(context.tasks, event.task),
    isEveryTaskTicked: ({ context }) => isEveryTaskTicked(context.tasks),
    hasPassingCheckPerCriterion: ({ context, event }) =>
      event.type === "plan.close" && hasPassingCheckPerCriterion(context.criteria, event.checks),
    canClose: and(["isEveryTaskTicked", "hasPassingCheckPerCriterion"]),
    hasSuccessor: ({ event }) => event.type === "plan.supersede" && event.successor.trim() !== "",
  },
  actions: {
    // A permitted tool use is an explicit transition: `can()` counts only transitions that do something.
    permitTool: emit(({ event }) => ({ type: "tool.permitted" as const, tool: event.type === "tool.use" ? event.tool : "" })),
    storeRevision: assign(({ event }) =>
      event.type === "plan.revise" ? { tasks: event.tasks, criteria: event.criteria } : {},
    ),
    tickTask: assign({
      tasks: ({ context, event }) =>
        event.type === "plan.tick"
          ? context.tasks.map((t) => (t.number === event.task ? { ...t, ticked: true } : t))
          : context.tasks,
    }),
    holdChecks: assign({ pendingChecks: ({ event }) => (event.type === "plan.close" ? event.checks : null) }),
    dropChecks: assign({ pendingChecks: null }),
    bindSession: assign({ sessionId: ({ context, event }) => (event.type === "plan.bind" ? event.sessionId : context.sessionId) }),
    recordDiscard: assign({
      reason: ({ event }) => (event.type === "plan.discard" || event.type === "plan.supersede" ? (event.reason ?? null) : null),
      successor: ({ event }) => (event.type === "plan.supersede" ? event.successor : null),
      pendingChecks: null,
    }),
  },
}).createMachine({
  id: "plan",
  version: PLAN_MACHINE_VERSION,
  context: ({ input }) => ({ ...input, pendingChecks: null, reason: null, successor: null }),
  initial: "draft",
  states: {
    draft: {
      tags: ["live", "write-ban"],
      initial: "editing",
      on: {
        "tool.use": { guard: "isReadOnlyTool", actions: "permitTool" },
        "plan.bind": { actions: "bindSession" },
        "plan.discard": { target: "abandoned", actions: "recordDiscard" },
        "plan.supersede": { guard: "hasSuccessor", target: "superseded", actions: "recordDiscard" },
      },
      states: {
        editing: {
          on: {
            "plan.revise": { actions: "storeRevision" },
            "plan.approve": { guard: "isApprovable", target: "confirming" },
          },
        },
        confirming: {
          tags: ["awaiting-user"],
          on: {
            "dialog.allow": { target: "#plan.approved" },
            "dialog.reject": { target: "editing" },
          },
        },
      },
    },
    approved: {
      tags: ["live"],
      initial: "working",
      on: {
        "tool.use": { actions: "permitTool" },
        "plan.bind": { actions: "bindSession" },
        "plan.discard": { target: "abandoned", actions: "recordDiscard" },
        "plan.supersede": { guard: "hasSuccessor", target: "superseded", actions: "recordDiscard" },
      },
      states: {
        working: {
          on: {
            "plan.tick": { guard: "isTaskOpen", actions: "tickTask" },
            "plan.close": { guard: "canClose", target: "confirming", actions: "holdChecks" },
          },
        },
        confirming: {
          tags: ["awaiting-user"],
          on: {
            "dialog.allow": { target: "#plan.done" },
            "dialog.reject": { target: "working", actions: "dropChecks" },
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
