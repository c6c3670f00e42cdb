import type { LoopContext, LoopResumeInput, LoopStartInput } from "./loop.types"

// How a loop's context is born: from loop_start's input, or again from the record of a loop that ended
// (loop_status {restart}). The birth gate then decides on it (loop.machine.ts: `starting`, `resuming`).

/** A new loop: every section pending, no pass yet. */
export function newContext(input: LoopStartInput): LoopContext {
  return {
    ...input,
    sections: input.sections.map((s) => ({ ...s, status: "pending" })),
    sectionIndex: 0,
    session: null,
    sessions: [],
    roles: {},
    driver: input.driver,
    iteration: 0,
    phase: "coding",
    restarts: [],
    last: null,
    amendments: [],
    findings: [],
    auditBefore: [],
    recurring: {},
    reason: null,
  }
}

/**
 * A loop born again: its identity, plan, section progress, findings, amendments and history kept; no session, a new
 * pass budget, the restarting process its driver, and its sandbox's birth fact as it stands here now.
 */
export function resumedContext({ resume, sandboxProblem, driver, at }: LoopResumeInput): LoopContext {
  const { context, ended } = resume
  const restart = { at, from: ended, reason: context.reason, passes: context.iteration }
  return {
    ...context,
    sandbox: { ...context.sandbox, problem: context.sandbox.mode === "off" ? null : sandboxProblem },
    session: null,
    driver,
    iteration: 0,
    restarts: [...context.restarts, restart],
    reason: null,
  }
}
