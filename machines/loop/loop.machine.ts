import type { LoopPhase } from "./loop.gates"
import { loopSetup } from "./loop.setup"

export type { LoopAmendment, LoopBrief, LoopContext, LoopEmitted, LoopEvent, LoopInput, LoopOutcome, LoopTag, LoopWorktree } from "./loop.types"

// The loop lifecycle: an approved plan executed section by section in a git worktree, each pass in a fresh session.
// A coder implements the current section and hands off; an auditor checks it and hands off its findings: clean moves
// to the next section (after the last one, to a final audit of the whole), a bug sends the section back to a coder.
// Only recorded handoffs advance the loop: the phase's current session records one (`loop.handoff`, the last one of a
// turn wins) and it is applied once, when that session goes idle (`loop.idle`). The loop never reads what a model says.

/** Bumped whenever a change would make an older persisted snapshot unfit for this definition. */
export const LOOP_MACHINE_VERSION = "1"

export const loopMachine = loopSetup.createMachine({
  id: "loop",
  version: LOOP_MACHINE_VERSION,
  context: ({ input }) => ({
    ...input,
    sections: input.sections.map((s) => ({ ...s, status: "pending" })),
    sectionIndex: 0,
    session: null,
    sessions: [],
    driver: input.driver,
    iteration: 0,
    pending: null,
    last: null,
    nudges: 0,
    amendments: [],
    reason: null,
  }),
  initial: "starting",
  states: {
    // Only a new loop passes here: the birth gate. Its worktree is made, then the first coder session is opened; a
    // refused start ends in `refused`, and the host records nothing of it.
    starting: {
      always: [{ guard: "canStart", target: "running", actions: "createWorktree" }, { target: "refused" }],
    },
    running: {
      tags: ["live", "handoff-only"],
      initial: "coding",
      on: {
        "loop.cancel": {
          guard: "isCancelFromOutside",
          target: "cancelled",
          actions: ["recordReason", "stopSession", { type: "announce", params: { outcome: "cancelled" } }],
        },
        "loop.fail": { target: "errored", actions: ["recordReason", "stopSession", { type: "announce", params: { outcome: "errored" } }] },
        // A pass whose session runs: the process that takes the loop over drives it (and sees its idle) from now on.
        "loop.restored": { guard: "canTakeOver", actions: "takeOver" },
      },
      states: {
        // A coder implements the current section (or, back from a dirty audit, fixes its findings).
        coding: {
          on: { "tool.use": { guard: "isWithinWorktree", actions: "permitTool" } },
          initial: "starting",
          states: {
            starting: {
              always: [
                { guard: "hasIterationsLeft", target: "opening", actions: "startPass" },
                { target: "#loop.errored", actions: ["noteOutOfIterations", { type: "announce", params: { outcome: "errored" } }] },
              ],
            },
            opening: {
              tags: ["opening"],
              entry: { type: "openSession", params: { role: "coder" } },
              on: {
                "loop.session.opened": {
                  target: "working",
                  actions: ["recordSession", { type: "sendBrief", params: { brief: "phase", phase: "coding" } }],
                },
                "loop.session.failed": {
                  target: "#loop.errored",
                  actions: ["recordSessionFailure", { type: "announce", params: { outcome: "errored" } }],
                },
                // A session being opened when its driver went: opened again, on the same pass, by the process that
                // takes the loop over.
                "loop.restored": { guard: "canTakeOver", target: "opening", reenter: true, actions: "takeOver" },
              },
            },
            working: {
              tags: ["working"],
              on: {
                "loop.handoff": {
                  guard: { type: "canRecordHandoff", params: { phase: "coding" } },
                  actions: "holdHandoff",
                },
                "loop.idle": [
                  { guard: "hasHandoffToApply", target: "#loop.running.auditing", actions: "applyHandoff" },
                  {
                    guard: "canNudge",
                    actions: ["countNudge", { type: "sendBrief", params: { brief: "nudge", phase: "coding" } }],
                  },
                  {
                    guard: "isFromCurrentSession",
                    target: "#loop.stalled",
                    actions: ["noteStalled", "stopSession", { type: "announce", params: { outcome: "stalled" } }],
                  },
                ],
              },
            },
          },
        },
        // An auditor checks the section just coded, read-only; it alone may amend the sections still pending.
        auditing: {
          tags: ["write-ban"],
          on: { "tool.use": { guard: "canAuditUse", actions: "permitTool" } },
          initial: "starting",
          states: {
            starting: {
              always: [
                { guard: "hasIterationsLeft", target: "opening", actions: "startPass" },
                { target: "#loop.errored", actions: ["noteOutOfIterations", { type: "announce", params: { outcome: "errored" } }] },
              ],
            },
            opening: {
              tags: ["opening"],
              entry: { type: "openSession", params: { role: "auditor" } },
              on: {
                "loop.session.opened": {
                  target: "working",
                  actions: ["recordSession", { type: "sendBrief", params: { brief: "phase", phase: "auditing" } }],
                },
                "loop.session.failed": {
                  target: "#loop.errored",
                  actions: ["recordSessionFailure", { type: "announce", params: { outcome: "errored" } }],
                },
                // A session being opened when its driver went: opened again, on the same pass, by the process that
                // takes the loop over.
                "loop.restored": { guard: "canTakeOver", target: "opening", reenter: true, actions: "takeOver" },
              },
            },
            working: {
              tags: ["working"],
              on: {
                "loop.handoff": {
                  guard: { type: "canRecordHandoff", params: { phase: "auditing" } },
                  actions: "holdHandoff",
                },
                "loop.adjust": { guard: "canAdjust", actions: "amendSections" },
                "loop.idle": [
                  {
                    guard: "isCleanAuditOfLastSection",
                    target: "#loop.running.final_auditing",
                    actions: ["completeSection", "applyHandoff"],
                  },
                  {
                    guard: "isCleanAuditToApply",
                    target: "#loop.running.coding",
                    actions: ["completeSection", "applyHandoff"],
                  },
                  { guard: "hasHandoffToApply", target: "#loop.running.coding", actions: "applyHandoff" },
                  {
                    guard: "canNudge",
                    actions: ["countNudge", { type: "sendBrief", params: { brief: "nudge", phase: "auditing" } }],
                  },
                  {
                    guard: "isFromCurrentSession",
                    target: "#loop.stalled",
                    actions: ["noteStalled", "stopSession", { type: "announce", params: { outcome: "stalled" } }],
                  },
                ],
              },
            },
          },
        },
        // Every section is done: an auditor checks the whole worktree against the whole plan.
        final_auditing: {
          tags: ["write-ban"],
          on: { "tool.use": { guard: "canAuditUse", actions: "permitTool" } },
          initial: "starting",
          states: {
            starting: {
              always: [
                { guard: "hasIterationsLeft", target: "opening", actions: "startPass" },
                { target: "#loop.errored", actions: ["noteOutOfIterations", { type: "announce", params: { outcome: "errored" } }] },
              ],
            },
            opening: {
              tags: ["opening"],
              entry: { type: "openSession", params: { role: "auditor" } },
              on: {
                "loop.session.opened": {
                  target: "working",
                  actions: ["recordSession", { type: "sendBrief", params: { brief: "phase", phase: "final_auditing" } }],
                },
                "loop.session.failed": {
                  target: "#loop.errored",
                  actions: ["recordSessionFailure", { type: "announce", params: { outcome: "errored" } }],
                },
                // A session being opened when its driver went: opened again, on the same pass, by the process that
                // takes the loop over.
                "loop.restored": { guard: "canTakeOver", target: "opening", reenter: true, actions: "takeOver" },
              },
            },
            working: {
              tags: ["working"],
              on: {
                "loop.handoff": {
                  guard: { type: "canRecordHandoff", params: { phase: "final_auditing" } },
                  actions: "holdHandoff",
                },
                "loop.idle": [
                  {
                    guard: "isCleanAuditToApply",
                    target: "#loop.completed",
                    actions: ["applyHandoff", "noteCompleted", { type: "announce", params: { outcome: "completed" } }],
                  },
                  { guard: "hasHandoffToApply", target: "#loop.running.final_audit_fix", actions: "applyHandoff" },
                  {
                    guard: "canNudge",
                    actions: ["countNudge", { type: "sendBrief", params: { brief: "nudge", phase: "final_auditing" } }],
                  },
                  {
                    guard: "isFromCurrentSession",
                    target: "#loop.stalled",
                    actions: ["noteStalled", "stopSession", { type: "announce", params: { outcome: "stalled" } }],
                  },
                ],
              },
            },
          },
        },
        // The final audit found bugs: a coder fixes them, then the final audit runs again.
        final_audit_fix: {
          on: { "tool.use": { guard: "isWithinWorktree", actions: "permitTool" } },
          initial: "starting",
          states: {
            starting: {
              always: [
                { guard: "hasIterationsLeft", target: "opening", actions: "startPass" },
                { target: "#loop.errored", actions: ["noteOutOfIterations", { type: "announce", params: { outcome: "errored" } }] },
              ],
            },
            opening: {
              tags: ["opening"],
              entry: { type: "openSession", params: { role: "coder" } },
              on: {
                "loop.session.opened": {
                  target: "working",
                  actions: ["recordSession", { type: "sendBrief", params: { brief: "phase", phase: "final_audit_fix" } }],
                },
                "loop.session.failed": {
                  target: "#loop.errored",
                  actions: ["recordSessionFailure", { type: "announce", params: { outcome: "errored" } }],
                },
                // A session being opened when its driver went: opened again, on the same pass, by the process that
                // takes the loop over.
                "loop.restored": { guard: "canTakeOver", target: "opening", reenter: true, actions: "takeOver" },
              },
            },
            working: {
              tags: ["working"],
              on: {
                "loop.handoff": {
                  guard: { type: "canRecordHandoff", params: { phase: "final_audit_fix" } },
                  actions: "holdHandoff",
                },
                "loop.idle": [
                  { guard: "hasHandoffToApply", target: "#loop.running.final_auditing", actions: "applyHandoff" },
                  {
                    guard: "canNudge",
                    actions: ["countNudge", { type: "sendBrief", params: { brief: "nudge", phase: "final_audit_fix" } }],
                  },
                  {
                    guard: "isFromCurrentSession",
                    target: "#loop.stalled",
                    actions: ["noteStalled", "stopSession", { type: "announce", params: { outcome: "stalled" } }],
                  },
                ],
              },
            },
          },
        },
      },
    },
    completed: { type: "final" },
    cancelled: { type: "final" },
    errored: { type: "final" },
    stalled: { type: "final" },
    // A start the birth gate refused: never recorded, no worktree made.
    refused: { type: "final" },
  },
})

export type LoopMachine = typeof loopMachine

/** The phase a running loop is in, from its state value; undefined once it has ended. */
const phaseOf = (value: unknown): LoopPhase | undefined => {
  const running = (value as { running?: Record<string, unknown> }).running
  return running === undefined ? undefined : (Object.keys(running)[0] as LoopPhase)
}

export function loopPhaseOf(value: unknown): LoopPhase | undefined {
  return typeof value === "object" && value !== null ? phaseOf(value) : undefined
}
