import { assertEvent, assign, not, setup } from "xstate"
import { handoffProblems, type LoopRole, MAX_LOOP_ERRORS, MAX_LOOP_NUDGES, roleOfPhase } from "./loop.gates"
import type { LoopBrief, LoopPassContext, LoopPassEvent, LoopPassInput, LoopPassOutput, LoopPassTag } from "./loop.types"

// One pass of a loop phase: a fresh session is opened for the phase's role, briefed, and works until it hands off
// (its recorded handoff applied when it goes idle). Every phase of the loop invokes this machine; the phase's `onDone`
// decides where the loop goes. The loop hands on only the current session's events (its own gate), so a pass never
// asks whose session an event came from. Effects are the loop's placeholders, run by the loop's implementations with
// the loop's context under the pass's own.

const loopPassSetup = setup({
  types: {
    context: {} as LoopPassContext,
    events: {} as LoopPassEvent,
    input: {} as LoopPassInput,
    output: {} as LoopPassOutput,
    tags: {} as LoopPassTag,
  },
  guards: {
    hasIterationsLeft: ({ context }) => context.iteration <= context.maxIterations,
    // The handoff gate's record half: only the phase role's well-formed record.
    canRecordHandoff: ({ context, event }) => {
      assertEvent(event, "loop.handoff")
      return handoffProblems(context.phase, event.handoff, event.openBugs ?? 0).length === 0
    },
    hasPendingHandoff: ({ context }) => context.pending !== null,
    hasNudgesLeft: ({ context }) => context.nudges < MAX_LOOP_NUDGES,
    // The error budget: the third error in a row (no handoff recorded between them) ends the pass.
    isErrorBudgetSpent: ({ context }) => context.errors + 1 >= MAX_LOOP_ERRORS,
    // An auditor amends the pending sections before its handoff, never after.
    canAdjust: not("hasPendingHandoff"),
    // The same for its findings: recorded or deleted before its handoff, never after.
    canReview: not("hasPendingHandoff"),
  },
  actions: {
    holdHandoff: assign(({ event }) => {
      assertEvent(event, "loop.handoff")
      return { pending: event.handoff, errors: 0 }
    }),
    countError: assign({ errors: ({ context }) => context.errors + 1 }),
    countNudge: assign({ nudges: ({ context }) => context.nudges + 1 }),
    // Placeholders: the loop's implementations run them (createLoopImplementations), with the loop's context.
    openSession: (_, _params: { role: LoopRole }) => {
      throw new Error("loop action openSession not provided")
    },
    sendBrief: (_, _params: { brief: LoopBrief; phase: LoopPassContext["phase"] }) => {
      throw new Error("loop action sendBrief not provided")
    },
    stopSession: () => {
      throw new Error("loop action stopSession not provided")
    },
  },
})

export const loopPassMachine = loopPassSetup.createMachine({
  id: "loopPass",
  context: ({ input }) => ({ ...input, pending: null, nudges: 0, errors: 0 }),
  initial: "starting",
  states: {
    // The loop's budget: a pass it has no room for ends before any session is opened.
    starting: {
      always: [{ guard: "hasIterationsLeft", target: "opening" }, { target: "outOfIterations" }],
    },
    opening: {
      tags: ["opening"],
      entry: { type: "openSession", params: ({ context }) => ({ role: roleOfPhase(context.phase) }) },
      on: {
        "loop.session.opened": {
          target: "working",
          actions: { type: "sendBrief", params: ({ context }) => ({ brief: "phase", phase: context.phase }) },
        },
        "loop.session.failed": { target: "failed" },
        // A session being opened when its driver went: opened again, on the same pass, by the process that takes the
        // loop over.
        "loop.restored": { target: "opening", reenter: true },
      },
    },
    working: {
      tags: ["working"],
      on: {
        "loop.handoff": { guard: "canRecordHandoff", actions: "holdHandoff" },
        "loop.adjust": { guard: "canAdjust", target: "working" },
        "loop.review.write": { guard: "canReview", target: "working" },
        "loop.review.delete": { guard: "canReview", target: "working" },
        "loop.idle": [
          // The turn ends: its handoff is applied, or (none recorded) it is reminded, a bounded number of times, or stalls.
          { guard: "hasPendingHandoff", target: "handedOff" },
          { guard: "hasNudgesLeft", actions: ["countNudge", { type: "sendBrief", params: ({ context }) => ({ brief: "nudge", phase: context.phase }) }] },
          { target: "stalled", actions: "stopSession" },
        ],
        "loop.session.error": [{ guard: "isErrorBudgetSpent", target: "errored", actions: "stopSession" }, { actions: "countError" }],
        // Silent past the stall timeout while it works: a hung turn; the session is stopped and the loop stalls.
        "loop.session.silent": { target: "silent", actions: "stopSession" },
        // Taken over while its session runs: the session goes on, nothing to open again.
        "loop.restored": { target: "working" },
      },
    },
    // Each end says what the phase decides on.
    handedOff: { type: "final", output: ({ context }) => ({ end: "handedOff", handoff: context.pending }) },
    failed: {
      type: "final",
      output: ({ event }) => {
        assertEvent(event, "loop.session.failed")
        return { end: "failed", error: event.error }
      },
    },
    outOfIterations: { type: "final", output: { end: "outOfIterations" } },
    stalled: { type: "final", output: ({ context }) => ({ end: "stalled", nudges: context.nudges }) },
    silent: {
      type: "final",
      output: ({ event }) => {
        assertEvent(event, "loop.session.silent")
        return { end: "silent", silentMs: event.silentMs }
      },
    },
    errored: {
      type: "final",
      output: ({ context, event }) => {
        assertEvent(event, "loop.session.error")
        return { end: "errors", count: context.errors + 1, error: event.error }
      },
    },
  },
  // The final state's output, as the phase's `onDone` reads it.
  output: ({ event }) => event.output as LoopPassOutput,
})

export type LoopPassMachine = typeof loopPassMachine
