import { mayDrive } from "../driver.claim"
import { and, assertEvent, assign, emit, not, setup } from "xstate"
import {
  adjustProblems,
  handoffProblems,
  isCleanAudit,
  type LoopPhase,
  type LoopRole,
  MAX_LOOP_NUDGES,
  MAX_LOOP_SECTIONS,
  isFileChangingTool,
  passesNeeded,
  pathsOutsideWorktree,
} from "./loop.gates"
import type { LoopAmendment, LoopBrief, LoopContext, LoopEmitted, LoopEvent, LoopInput, LoopOutcome, LoopTag } from "./loop.types"

// The loop machine's named guards (each calls a pure predicate of loop.gates.ts) and actions: context updates, and the
// effects each harness supplies (createLoopImplementations), declared here as placeholders that throw.

export const loopSetup = setup({
  types: {
    context: {} as LoopContext,
    events: {} as LoopEvent,
    input: {} as LoopInput,
    tags: {} as LoopTag,
    emitted: {} as LoopEmitted,
  },
  guards: {
    isApprovedPlan: ({ context }) => context.planPath === null || context.planStatus === "approved",
    hasSections: ({ context }) => context.sections.length > 0 && context.sections.length <= MAX_LOOP_SECTIONS,
    hasEnoughPasses: ({ context }) => context.maxIterations >= passesNeeded(context.sections.length),
    isAskedFromOutsideLoops: ({ context }) => context.askedFrom === null,
    isCancelFromOutside: ({ context, event }) => {
      assertEvent(event, "loop.cancel")
      return event.session === null || !context.sessions.includes(event.session)
    },
    canStart: and(["isApprovedPlan", "hasSections", "hasEnoughPasses", "isAskedFromOutsideLoops"]),
    // One process drives a loop: the driver claim's live holder, else the first that takes it over.
    canTakeOver: ({ event }) => {
      assertEvent(event, "loop.restored")
      return mayDrive(event.driver)
    },
    isFromCurrentSession: ({ context, event }) => {
      assertEvent(event, ["loop.handoff", "loop.idle", "loop.adjust"])
      return context.session !== null && event.session === context.session
    },
    // The handoff gate: only the phase's current session, only the phase role's well-formed record.
    canRecordHandoff: ({ context, event }, { phase }: { phase: LoopPhase }) => {
      assertEvent(event, "loop.handoff")
      return context.session !== null && event.session === context.session && handoffProblems(phase, event.handoff).length === 0
    },
    hasPendingHandoff: ({ context }) => context.pending !== null,
    isFileChangingTool: ({ event }) => {
      assertEvent(event, "tool.use")
      return isFileChangingTool(event.tool)
    },
    isWithinWorktree: ({ context, event }) => {
      assertEvent(event, "tool.use")
      return pathsOutsideWorktree(event.paths, context.worktree.dir).length === 0
    },
    isCleanAudit: ({ context }) => isCleanAudit(context.pending),
    isLastSection: ({ context }) => context.sectionIndex >= context.sections.length - 1,
    hasIterationsLeft: ({ context }) => context.iteration < context.maxIterations,
    hasNudgesLeft: ({ context }) => context.nudges < MAX_LOOP_NUDGES,
    isAcceptableAdjust: ({ context, event }) => {
      assertEvent(event, "loop.adjust")
      return adjustProblems({ ...context, amendments: context.amendments.length }, event.pending, event.rationale).length === 0
    },
    // An auditor reads and runs checks in the worktree; it changes no file.
    canAuditUse: and([not("isFileChangingTool"), "isWithinWorktree"]),
    // An idle of the current session applies its recorded handoff, once.
    hasHandoffToApply: and(["isFromCurrentSession", "hasPendingHandoff"]),
    isCleanAuditToApply: and(["hasHandoffToApply", "isCleanAudit"]),
    isCleanAuditOfLastSection: and(["isCleanAuditToApply", "isLastSection"]),
    // An idle without a handoff is answered with a reminder, a bounded number of times.
    canNudge: and(["isFromCurrentSession", "hasNudgesLeft"]),
    // Only the auditor of a section audit, before its handoff, amends the pending sections.
    canAdjust: and(["isFromCurrentSession", "isAcceptableAdjust", not("hasPendingHandoff")]),
  },
  actions: {
    // A permitted tool use is an explicit transition: `can()` counts only transitions that do something.
    permitTool: emit(({ event }) => {
      assertEvent(event, "tool.use")
      return { type: "tool.permitted" as const, tool: event.tool }
    }),
    startPass: assign({ iteration: ({ context }) => context.iteration + 1, session: null, pending: null, nudges: 0 }),
    recordSession: assign(({ context, event }) => {
      assertEvent(event, "loop.session.opened")
      return { session: event.session, sessions: [...context.sessions, event.session], driver: event.driver }
    }),
    takeOver: assign(({ event }) => {
      assertEvent(event, "loop.restored")
      return { driver: event.driver.me }
    }),
    holdHandoff: assign(({ event }) => {
      assertEvent(event, "loop.handoff")
      return { pending: event.handoff }
    }),
    applyHandoff: assign({ last: ({ context }) => context.pending, pending: null }),
    completeSection: assign(({ context }) => {
      const sections = context.sections.map((s, i) => (i === context.sectionIndex ? { ...s, status: "done" as const } : s))
      return { sections, sectionIndex: Math.min(context.sectionIndex + 1, sections.length - 1) }
    }),
    countNudge: assign({ nudges: ({ context }) => context.nudges + 1 }),
    amendSections: assign(({ context, event }) => {
      assertEvent(event, "loop.adjust")
      const kept = context.sections.slice(0, context.sectionIndex + 1)
      const sections = [...kept, ...event.pending.map((s) => ({ title: s.title.trim(), content: s.content.trim(), status: "pending" as const }))]
      const amendment: LoopAmendment = {
        at: event.now,
        section: context.sectionIndex + 1,
        rationale: event.rationale.trim(),
        before: context.sections.slice(context.sectionIndex + 1).map((s) => s.title),
        after: sections.slice(context.sectionIndex + 1).map((s) => s.title),
      }
      return { sections, amendments: [...context.amendments, amendment] }
    }),
    recordReason: assign(({ event }) => {
      assertEvent(event, ["loop.cancel", "loop.fail"])
      return { reason: event.reason }
    }),
    recordSessionFailure: assign(({ event }) => {
      assertEvent(event, "loop.session.failed")
      return { reason: `session_creation_failed: ${event.error}` }
    }),
    noteOutOfIterations: assign({ reason: ({ context }) => `max_iterations: ${context.maxIterations} passes spent` }),
    noteStalled: assign({ reason: ({ context }) => `stalled: the session ended ${context.nudges + 1} turns without a handoff` }),
    noteCompleted: assign({ reason: "completed" }),
    // Placeholders: each harness provides them (createLoopImplementations). createWorktree is awaited before the loop
    // is recorded; openSession only starts opening and reports back with `loop.session.opened` or `loop.session.failed`.
    createWorktree: () => {
      throw new Error("loop action createWorktree not provided")
    },
    openSession: (_, _params: { role: LoopRole }) => {
      throw new Error("loop action openSession not provided")
    },
    sendBrief: (_, _params: { brief: LoopBrief; phase: LoopPhase }) => {
      throw new Error("loop action sendBrief not provided")
    },
    stopSession: () => {
      throw new Error("loop action stopSession not provided")
    },
    announce: (_, _params: { outcome: LoopOutcome }) => {
      throw new Error("loop action announce not provided")
    },
  },
})
