import type { SnapshotFrom } from "xstate"
import type { LoopPhase } from "./loop.gates"
import type { LoopPassMachine } from "./loop.pass.machine"
import { type ShellConfinement, confinementOf } from "./loop.sandbox"
import { newContext, resumedContext } from "./loop.birth"
import { loopSetup } from "./loop.setup"

export { auditOutcomeOf, scopeOf as findingScopeOf } from "./loop.setup"

export type {
  LoopAmendment,
  LoopBrief,
  LoopContext,
  LoopEmitted,
  LoopEvent,
  LoopInput,
  LoopOutcome,
  LoopPassContext,
  LoopPassOutput,
  LoopPassView,
  LoopRestart,
  LoopResumeInput,
  LoopStartInput,
  LoopTag,
  LoopWorktree,
} from "./loop.types"

// The loop lifecycle: an approved plan executed section by section in a git worktree, each pass in a fresh session.
// A coder implements the current section and hands off; an auditor checks it and hands off its findings: clean moves
// to the next section (after the last one, to a final audit of the whole, then a post-action pass that ends the loop
// with loop_complete), the host committing the section's work on the loop's branch first; a bug sends the section
// back to a coder.
// Each phase runs one pass (loop.pass.machine.ts: a session opened, briefed, working until it hands off) and decides,
// when the pass ends, where the loop goes. Only recorded handoffs advance the loop: the phase's current session records
// one (`loop.handoff`, the last one of a turn wins) and it is applied once, when that session goes idle (`loop.idle`).
// The loop never reads what a model says.

/**
 * Bumped whenever a change would make an older persisted snapshot unfit for this definition. 2: each phase's pass is
 * an invoked machine (its session's handoff and reminders live in the pass's snapshot). 3: a loop records its sandbox
 * and its review findings. 4: a loop records its phase, its restarts and the role of each session. loop.upgrade.ts
 * reads 1, 2 and 3.
 */
export const LOOP_MACHINE_VERSION = "4"

export const loopMachine = loopSetup.createMachine({
  id: "loop",
  version: LOOP_MACHINE_VERSION,
  context: ({ input }) => ("resume" in input ? resumedContext(input) : newContext(input)),
  initial: "starting",
  states: {
    // The birth gate. A new loop's worktree is made, then its first coder session is opened; a refused start ends in
    // `refused`, and the host records nothing of it. A loop born again from its record goes on to `resuming`.
    starting: {
      always: [{ guard: "isResume", target: "resuming" }, { guard: "canStart", target: "running", actions: "createWorktree" }, { target: "refused" }],
    },
    // A loop born again from its record (loop_status {restart}): the birth gate, then the phase it ended in starts
    // again in its worktree, with a new session and new budgets. A refused restart leaves the record as it was.
    resuming: {
      always: [{ guard: "canResume", target: "resumed", actions: "reopenWorktree" }, { target: "refused" }],
    },
    // The phase the loop ended in (the last one it can be in when it is none of the others).
    resumed: {
      always: [
        { guard: { type: "isResumingIn", params: { phase: "coding" } }, target: "running.coding" },
        { guard: { type: "isResumingIn", params: { phase: "auditing" } }, target: "running.auditing" },
        { guard: { type: "isResumingIn", params: { phase: "final_auditing" } }, target: "running.final_auditing" },
        { guard: { type: "isResumingIn", params: { phase: "post_action" } }, target: "running.post_action" },
        { target: "running.final_audit_fix" },
      ],
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
        // A pass whose session runs: the process that takes the loop over drives it (and sees its idle) from now on;
        // a session still being opened is opened again by its pass.
        "loop.restored": { guard: "canTakeOver", actions: ["takeOver", "forwardToPass"] },
        // The pass's session: recorded here (every session the loop opened), briefed by the pass.
        "loop.session.opened": { actions: ["recordSession", "forwardToPass"] },
        "loop.session.failed": { actions: "forwardToPass" },
        "loop.handoff": { guard: "canHandOff", actions: "forwardHandoff" },
        "loop.idle": { guard: "isFromCurrentSession", actions: "forwardToPass" },
        "loop.session.error": { guard: "isFromCurrentSession", actions: "forwardToPass" },
        "loop.session.silent": { guard: "isFromCurrentSession", actions: "forwardToPass" },
        // A pass that ends without a handoff ends the loop, whatever its phase.
        "xstate.done.actor.pass": [
          { guard: "hasPassFailed", target: "errored", actions: ["recordSessionFailure", { type: "announce", params: { outcome: "errored" } }] },
          { guard: "hasPassErrored", target: "errored", actions: ["noteErrors", { type: "announce", params: { outcome: "errored" } }] },
          { guard: "wasPassSilent", target: "stalled", actions: ["noteSilence", { type: "announce", params: { outcome: "stalled" } }] },
          { guard: "isOutOfIterations", target: "errored", actions: ["noteOutOfIterations", { type: "announce", params: { outcome: "errored" } }] },
          { target: "stalled", actions: ["noteStalled", { type: "announce", params: { outcome: "stalled" } }] },
        ],
      },
      // loop.restart (loop_status {restart, force}) is taken on every phase: the phase starts again, its pass stopped,
      // with a new session and the budget from none.
      states: {
        // A coder implements the current section (or, back from a dirty audit, fixes its findings).
        coding: {
          entry: { type: "startPass", params: { phase: "coding" } },
          invoke: {
            id: "pass",
            src: "pass",
            input: ({ context }) => ({ phase: "coding", iteration: context.iteration, maxIterations: context.maxIterations }),
            onDone: { guard: "isHandedOff", target: "auditing", actions: "applyHandoff" },
          },
          on: {
            "tool.use": { guard: "canWorkerUse", actions: "permitTool" },
            "loop.restart": { guard: "canRestart", target: "coding", reenter: true, actions: ["stopSession", "noteRestart"] },
          },
        },
        // An auditor checks the section just coded, read-only; it alone may amend the sections still pending.
        auditing: {
          tags: ["write-ban"],
          entry: [{ type: "startPass", params: { phase: "auditing" } }, "noteAuditStart"],
          invoke: {
            id: "pass",
            src: "pass",
            input: ({ context }) => ({ phase: "auditing", iteration: context.iteration, maxIterations: context.maxIterations }),
            onDone: [
              {
                guard: "isCleanAuditOfLastSection",
                target: "final_auditing",
                actions: ["countRecurring", "recordAudit", "commitSection", "completeSection", "applyHandoff"],
              },
              { guard: "isCleanAudit", target: "coding", actions: ["countRecurring", "recordAudit", "commitSection", "completeSection", "applyHandoff"] },
              { guard: "isHandedOff", target: "coding", actions: ["countRecurring", "recordAudit", "applyHandoff"] },
            ],
          },
          on: {
            "tool.use": { guard: "canAuditUse", actions: "permitTool" },
            "loop.restart": { guard: "canRestart", target: "auditing", reenter: true, actions: ["stopSession", "noteRestart"] },
            "loop.adjust": { guard: "canAdjust", actions: ["amendSections", "forwardToPass"] },
            "loop.review.write": { guard: "canReviewWrite", actions: ["addFinding", "forwardToPass", "storeFindings"] },
            "loop.review.delete": { guard: "canReviewDelete", actions: ["removeFinding", "forwardToPass", "storeFindings"] },
          },
        },
        // Every section is done: an auditor checks the whole worktree against the whole plan.
        final_auditing: {
          tags: ["write-ban"],
          entry: [{ type: "startPass", params: { phase: "final_auditing" } }, "noteAuditStart"],
          invoke: {
            id: "pass",
            src: "pass",
            input: ({ context }) => ({ phase: "final_auditing", iteration: context.iteration, maxIterations: context.maxIterations }),
            onDone: [
              {
                guard: "isCleanAudit",
                target: "post_action",
                actions: ["countRecurring", "recordAudit", { type: "commitSection", params: { final: true } }, "applyHandoff"],
              },
              { guard: "isHandedOff", target: "final_audit_fix", actions: ["countRecurring", "recordAudit", "applyHandoff"] },
            ],
          },
          on: {
            "tool.use": { guard: "canAuditUse", actions: "permitTool" },
            "loop.restart": { guard: "canRestart", target: "final_auditing", reenter: true, actions: ["stopSession", "noteRestart"] },
            "loop.review.write": { guard: "canReviewWrite", actions: ["addFinding", "forwardToPass", "storeFindings"] },
            "loop.review.delete": { guard: "canReviewDelete", actions: ["removeFinding", "forwardToPass", "storeFindings"] },
          },
        },
        // The final audit is clean: a last pass wraps the loop up (its checks, what to follow up), not audited. Its only
        // exit is loop_complete: completed (with issues or not) completes the loop, failed ends it as errored.
        post_action: {
          entry: { type: "startPass", params: { phase: "post_action" } },
          invoke: {
            id: "pass",
            src: "pass",
            input: ({ context }) => ({ phase: "post_action", iteration: context.iteration, maxIterations: context.maxIterations }),
            onDone: [
              {
                guard: "isPostActionFailed",
                target: "#loop.errored",
                actions: ["applyHandoff", "notePostActionFailed", { type: "announce", params: { outcome: "errored" } }],
              },
              {
                guard: "isHandedOff",
                target: "#loop.completed",
                actions: [
                  { type: "commitSection", params: { final: true, post: true } },
                  "applyHandoff",
                  "noteCompleted",
                  { type: "announce", params: { outcome: "completed" } },
                ],
              },
            ],
          },
          on: {
            "tool.use": { guard: "canWorkerUse", actions: "permitTool" },
            "loop.restart": { guard: "canRestart", target: "post_action", reenter: true, actions: ["stopSession", "noteRestart"] },
          },
        },
        // The final audit found bugs: a coder fixes them, then the final audit runs again.
        final_audit_fix: {
          entry: { type: "startPass", params: { phase: "final_audit_fix" } },
          invoke: {
            id: "pass",
            src: "pass",
            input: ({ context }) => ({ phase: "final_audit_fix", iteration: context.iteration, maxIterations: context.maxIterations }),
            onDone: { guard: "isHandedOff", target: "final_auditing", actions: "applyHandoff" },
          },
          on: {
            "tool.use": { guard: "canWorkerUse", actions: "permitTool" },
            "loop.restart": { guard: "canRestart", target: "final_audit_fix", reenter: true, actions: ["stopSession", "noteRestart"] },
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
type LoopSnapshot = SnapshotFrom<LoopMachine>
export type LoopPassSnapshot = SnapshotFrom<LoopPassMachine>

/** The phase a running loop is in, from its state value (`{ running: <phase> }`); undefined once it has ended. */
const phaseOf = (value: object): LoopPhase | undefined => {
  const running = (value as { running?: unknown }).running
  return typeof running === "string" ? (running as LoopPhase) : undefined
}

export function loopPhaseOf(value: unknown): LoopPhase | undefined {
  return typeof value === "object" && value !== null ? phaseOf(value) : undefined
}

/**
 * The current pass of a running loop (its state, tags and context: the session's handoff, its reminders), or
 * undefined once the loop has ended. The one place that reads the pass out of a loop's snapshot.
 */
export function loopPassOf(snapshot: LoopSnapshot): LoopPassSnapshot | undefined {
  const pass = (snapshot.children as { pass?: { getSnapshot(): unknown } }).pass
  return snapshot.status === "active" ? (pass?.getSnapshot() as LoopPassSnapshot | undefined) : undefined
}

/** How the running loop confines a shell of `session` (one of its passes' sessions), or null when it does not. */
export function loopShellConfinement(snapshot: LoopSnapshot, session: string): ShellConfinement | null {
  if (!snapshot.hasTag("live")) return null
  const { sandbox, worktree, sessions, session: current } = snapshot.context
  return confinementOf({ sandbox, worktree: worktree.dir, sessions, current, writeBan: snapshot.hasTag("write-ban") }, session)
}
