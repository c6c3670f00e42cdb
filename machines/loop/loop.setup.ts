import { mayDrive } from "../driver.claim"
import { and, assertEvent, assign, emit, not, sendTo, setup } from "xstate"
import {
  adjustProblems,
  isCleanAudit,
  type LoopHandoff,
  type LoopPhase,
  type LoopSectionPlan,
  MAX_LOOP_SECTIONS,
  isDeniedInLoop,
  passesNeeded,
  pathsOutsideWorktree,
  roleOfPhase,
} from "./loop.gates"
import { isFileChangingTool } from "../tool.kinds"
import { loopPassMachine } from "./loop.pass.machine"
import { isSandboxReady } from "./loop.sandbox"
import { CROSS_SECTION, type FindingScope, type LoopOpenFinding, auditFindings, openBugs, placeOf, recurringAfter } from "./loop.findings"
import type { LoopAmendment, LoopContext, LoopEmitted, LoopEvent, LoopInput, LoopOutcome, LoopPassOutput, LoopTag } from "./loop.types"

// The loop machine's named guards (each calls a pure predicate of loop.gates.ts) and actions: context updates, and the
// effects each harness supplies (createLoopImplementations), declared here as placeholders that throw. A phase's pass
// is the pass machine (loop.pass.machine.ts); its guards decide on the pass's output when it ends.

/** The output of the pass that just ended, when the event is its end. */
function passEnd(event: { type: string }): LoopPassOutput | undefined {
  return event.type === "xstate.done.actor.pass" && "output" in event ? (event.output as LoopPassOutput) : undefined
}

/** Where the loop's audit stands: its section, or (every section done) the final audit of the whole plan. */
export function scopeOf(context: LoopContext): FindingScope {
  return { section: context.sectionIndex, final: context.sections.every((s) => s.status === "done") }
}

/**
 * What an audit that just ended found, for its history: the section it audited (CROSS_SECTION for the final audit),
 * whether it is clean, and the findings in its scope with the ones its handoff named. Null when no audit ended.
 */
export function auditOutcomeOf(context: LoopContext, event: { type: string }): { section: number; clean: boolean; found: LoopOpenFinding[] } | null {
  const handoff = handedOff(event)
  if (handoff?.role !== "auditor") return null
  const scope = scopeOf(context)
  const found = auditFindings(context.findings, handoff.findings, scope)
  return { section: scope.final ? CROSS_SECTION : scope.section, clean: !found.some((f) => f.severity === "bug"), found }
}

/** The handoff of the pass that just ended (null: it ended without one). */
function handedOff(event: { type: string }): LoopHandoff | null {
  const end = passEnd(event)
  return end?.end === "handedOff" ? end.handoff : null
}

export const loopSetup = setup({
  types: {
    context: {} as LoopContext,
    events: {} as LoopEvent,
    input: {} as LoopInput,
    tags: {} as LoopTag,
    emitted: {} as LoopEmitted,
  },
  actors: { pass: loopPassMachine },
  guards: {
    isApprovedPlan: ({ context }) => context.planPath === null || context.planStatus === "approved",
    hasSections: ({ context }) => context.sections.length > 0 && context.sections.length <= MAX_LOOP_SECTIONS,
    hasEnoughPasses: ({ context }) => context.maxIterations >= passesNeeded(context.sections.length),
    isAskedFromOutsideLoops: ({ context }) => context.askedFrom === null,
    // Fail-closed: a loop whose sandbox cannot start here does not start; it never runs its passes unconfined.
    isSandboxReady: ({ context }) => isSandboxReady(context.sandbox),
    isCancelFromOutside: ({ context, event }) => {
      assertEvent(event, "loop.cancel")
      return event.session === null || !context.sessions.includes(event.session)
    },
    canStart: and(["isApprovedPlan", "hasSections", "hasEnoughPasses", "isAskedFromOutsideLoops", "isSandboxReady"]),
    // A loop born again from its record (loop_status {restart}) carries its restarts; a new loop has none.
    isResume: ({ context }) => context.restarts.length > 0,
    // A completed loop is history: only one that stalled, erred or was cancelled starts again.
    isUnfinished: ({ context }) => context.restarts.at(-1)?.from !== "completed",
    canResume: and(["isUnfinished", "isSandboxReady"]),
    // A resumed loop starts again in the phase it ended in.
    isResumingIn: ({ context }, params: { phase: string }) => context.phase === params.phase,
    // A running loop may only look stuck: restarting it stops its pass, so it takes force, and a process that may drive it.
    isForced: ({ event }) => {
      assertEvent(event, "loop.restart")
      return event.force
    },
    mayDriveRestart: ({ event }) => {
      assertEvent(event, "loop.restart")
      return mayDrive(event.driver)
    },
    canRestart: and(["isForced", "mayDriveRestart"]),
    // One process drives a loop: the driver claim's live holder, else the first that takes it over.
    canTakeOver: ({ event }) => {
      assertEvent(event, "loop.restored")
      return mayDrive(event.driver)
    },
    // Only the current session's events reach its pass: the pass never asks whose session an event came from.
    isFromCurrentSession: ({ context, event }) => {
      assertEvent(event, ["loop.handoff", "loop.idle", "loop.session.error", "loop.session.silent", "loop.adjust", "loop.review.write", "loop.review.delete"])
      return context.session !== null && event.session === context.session
    },
    isFileChangingTool: ({ event }) => {
      assertEvent(event, "tool.use")
      return isFileChangingTool(event.tool)
    },
    isWithinWorktree: ({ context, event }) => {
      assertEvent(event, "tool.use")
      return pathsOutsideWorktree(event.paths, context.worktree.dir).length === 0
    },
    isLastSection: ({ context }) => context.sectionIndex >= context.sections.length - 1,
    isAcceptableAdjust: ({ context, event }) => {
      assertEvent(event, "loop.adjust")
      return adjustProblems({ ...context, amendments: context.amendments.length }, event, event.rationale).length === 0
    },
    // An auditor reads and runs checks in the worktree; it changes no file.
    canAuditUse: and([not("isDeniedInLoop"), not("isFileChangingTool"), "isWithinWorktree"]),
    // A coder (and the post-action) works in the worktree, with the tools a loop's session may use.
    canWorkerUse: and([not("isDeniedInLoop"), "isWithinWorktree"]),
    isDeniedInLoop: ({ event }) => {
      assertEvent(event, "tool.use")
      return isDeniedInLoop(event.tool)
    },
    // Only the auditor of a section audit amends the pending sections (before its handoff: its pass's gate).
    canAdjust: and(["isFromCurrentSession", "isAcceptableAdjust"]),
    // How the phase's pass ended: its handoff (applied once, as it ends), or why the loop cannot go on.
    isHandedOff: ({ event }) => passEnd(event)?.end === "handedOff",
    // Clean: the handoff names no bug, and no recorded bug in the audit's scope is open (the clean-audit gate).
    isCleanAudit: ({ context, event }) =>
      passEnd(event)?.end === "handedOff" && isCleanAudit(handedOff(event)) && openBugs(context.findings, scopeOf(context)) === 0,
    // A handoff waits for the pass's subagents: their work would land after the record that describes the pass.
    hasNoBusySession: ({ event }) => {
      assertEvent(event, "loop.handoff")
      return (event.busy ?? []).length === 0
    },
    canHandOff: and(["isFromCurrentSession", "hasNoBusySession"]),
    // One finding per place: a second one there is refused until the first is deleted.
    isNewFindingPlace: ({ context, event }) => {
      assertEvent(event, "loop.review.write")
      return !context.findings.some((f) => placeOf(f) === placeOf(event.finding))
    },
    hasFindingAt: ({ context, event }) => {
      assertEvent(event, "loop.review.delete")
      return context.findings.some((f) => placeOf(f) === placeOf(event))
    },
    // An audit's session records and deletes findings (before its handoff: its pass's gate); a coder never does.
    canReviewWrite: and(["isFromCurrentSession", "isNewFindingPlace"]),
    canReviewDelete: and(["isFromCurrentSession", "hasFindingAt"]),
    isCleanAuditOfLastSection: and(["isCleanAudit", "isLastSection"]),
    hasPassFailed: ({ event }) => passEnd(event)?.end === "failed",
    hasPassErrored: ({ event }) => passEnd(event)?.end === "errors",
    wasPassSilent: ({ event }) => passEnd(event)?.end === "silent",
    isPostActionFailed: ({ event }) => {
      const handoff = handedOff(event)
      return handoff?.role === "post_action" && handoff.outcome === "failed"
    },
    isOutOfIterations: ({ event }) => passEnd(event)?.end === "outOfIterations",
  },
  actions: {
    // A permitted tool use is an explicit transition: `can()` counts only transitions that do something.
    permitTool: emit(({ event }) => {
      assertEvent(event, "tool.use")
      return { type: "tool.permitted" as const, tool: event.tool }
    }),
    // Every phase starts one pass: counted as it starts (a pass the budget has no room for is given back as it ends).
    startPass: assign(({ context }, params: { phase: LoopPhase }) => ({ iteration: context.iteration + 1, session: null, phase: params.phase })),
    // A forced restart: the pass is stopped (stopSession, before this), its budget starts again, the restarter drives.
    noteRestart: assign(({ context, event }) => {
      assertEvent(event, "loop.restart")
      const restart = { at: event.at, from: `running.${context.phase}`, reason: null, passes: context.iteration }
      return { restarts: [...context.restarts, restart], iteration: 0, driver: event.driver.me }
    }),
    recordSession: assign(({ context, event }) => {
      assertEvent(event, "loop.session.opened")
      return {
        session: event.session,
        sessions: [...context.sessions, event.session],
        roles: { ...context.roles, [event.session]: roleOfPhase(context.phase) },
        driver: event.driver,
      }
    }),
    takeOver: assign(({ event }) => {
      assertEvent(event, "loop.restored")
      return { driver: event.driver.me }
    }),
    // The events of the current pass go on to it: its gates take them or not (the host asks both machines).
    forwardToPass: sendTo("pass", ({ event }) => event),
    // A handoff goes on with the loop's count of the bugs open in the audit's scope: the pass's gate weighs its summary.
    forwardHandoff: sendTo("pass", ({ context, event }) => {
      assertEvent(event, "loop.handoff")
      return { ...event, openBugs: openBugs(context.findings, scopeOf(context)) }
    }),
    addFinding: assign(({ context, event }) => {
      assertEvent(event, "loop.review.write")
      return { findings: [...context.findings, event.finding] }
    }),
    removeFinding: assign(({ context, event }) => {
      assertEvent(event, "loop.review.delete")
      return { findings: context.findings.filter((f) => placeOf(f) !== placeOf(event)) }
    }),
    noteAuditStart: assign({ auditBefore: ({ context }) => context.findings }),
    // A dirty audit counts the places of its bugs (the recurring ones), a clean one clears the count.
    countRecurring: assign({
      recurring: ({ context, event }) => {
        const handoff = handedOff(event)
        const found = auditFindings(context.findings, handoff?.role === "auditor" ? handoff.findings : [], scopeOf(context))
        return recurringAfter(context.recurring, found)
      },
    }),
    applyHandoff: assign({ last: ({ event }) => handedOff(event) }),
    completeSection: assign(({ context }) => {
      const sections = context.sections.map((s, i) => (i === context.sectionIndex ? { ...s, status: "done" as const } : s))
      return { sections, sectionIndex: Math.min(context.sectionIndex + 1, sections.length - 1) }
    }),
    amendSections: assign(({ context, event }) => {
      assertEvent(event, "loop.adjust")
      const at = context.sectionIndex
      const done = context.sections.slice(0, at)
      const underAudit = context.sections[at]
      // Edited in place: the section keeps its progress (its status); only its requirement changes.
      const current = underAudit === undefined || event.current === undefined ? underAudit : { ...underAudit, ...plainSection(event.current) }
      const pending =
        event.pending === undefined ? context.sections.slice(at + 1) : event.pending.map((s) => ({ ...plainSection(s), status: "pending" as const }))
      const sections = [...done, ...(current === undefined ? [] : [current]), ...pending]
      const amendment: LoopAmendment = {
        at: event.now,
        section: at + 1,
        rationale: event.rationale.trim(),
        before: context.sections.slice(at + 1).map((s) => s.title),
        after: sections.slice(at + 1).map((s) => s.title),
        was: context.sections.slice(at).map(plainSection),
        now: sections.slice(at).map(plainSection),
      }
      return { sections, amendments: [...context.amendments, amendment] }
    }),
    recordReason: assign(({ event }) => {
      assertEvent(event, ["loop.cancel", "loop.fail"])
      return { reason: event.reason }
    }),
    noteSilence: assign(({ event }) => {
      const end = passEnd(event)
      const silentMs = end?.end === "silent" ? end.silentMs : 0
      const silence = silentMs >= 120_000 ? `${Math.round(silentMs / 60_000)} min` : `${Math.round(silentMs / 1_000)} s`
      return { reason: `stall_timeout: the pass's session worked without a sign of life for ${silence}` }
    }),
    noteErrors: assign(({ event }) => {
      const end = passEnd(event)
      return { reason: end?.end === "errors" ? `errors: ${end.count} session errors in a row; the last: ${end.error}` : "errors" }
    }),
    recordSessionFailure: assign(({ event }) => {
      const end = passEnd(event)
      return { reason: `session_creation_failed: ${end?.end === "failed" ? end.error : "unknown"}` }
    }),
    // The pass that found no room never started: every pass of the budget is spent.
    noteOutOfIterations: assign(({ context }) => ({ iteration: context.maxIterations, reason: `max_iterations: ${context.maxIterations} passes spent` })),
    noteStalled: assign(({ event }) => {
      const end = passEnd(event)
      return { reason: `stalled: the session ended ${end?.end === "stalled" ? end.nudges + 1 : 1} turns without a handoff` }
    }),
    noteCompleted: assign({
      reason: ({ event }) => {
        const handoff = handedOff(event)
        return handoff?.role === "post_action" && handoff.outcome === "completed_with_issues" ? "completed_with_issues" : "completed"
      },
    }),
    notePostActionFailed: assign({
      reason: ({ event }) => {
        const handoff = handedOff(event)
        return `post_action_failed: ${handoff?.role === "post_action" ? (handoff.notes ?? handoff.steps.join("; ")) : "no record"}`
      },
    }),
    // Placeholders: each harness provides them (createLoopImplementations). storeFindings keeps the loop's open findings
    // where review_read finds them; recordAudit keeps each audit in the loop's audit history (run before applyHandoff:
    // `last` is still the coder's handoff it checked).
    storeFindings: () => {
      throw new Error("loop action storeFindings not provided")
    },
    recordAudit: () => {
      throw new Error("loop action recordAudit not provided")
    },
    // Placeholders: each harness provides them (createLoopImplementations). createWorktree is awaited before the loop
    // is recorded. The pass declares the session's own (opening, briefs).
    createWorktree: () => {
      throw new Error("loop action createWorktree not provided")
    },
    // A resumed loop's worktree: there still, on its branch, or made again from the branch (awaited, as createWorktree).
    reopenWorktree: () => {
      throw new Error("loop action reopenWorktree not provided")
    },
    stopSession: () => {
      throw new Error("loop action stopSession not provided")
    },
    // The host commits a section's work once its audit is clean (run with the context before completeSection), and
    // what the final audit's fixes changed once it is clean (`final`).
    commitSection: (_, _params?: { final: boolean; post?: boolean }) => {
      throw new Error("loop action commitSection not provided")
    },
    announce: (_, _params: { outcome: LoopOutcome }) => {
      throw new Error("loop action announce not provided")
    },
  },
})

/** A section's requirement alone, trimmed (no progress). */
function plainSection(section: LoopSectionPlan): LoopSectionPlan {
  return { title: section.title.trim(), content: section.content.trim() }
}
