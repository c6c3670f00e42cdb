import type { LoopPhase, LoopRole } from "../../machines/loop/loop.gates"
import {
  type LoopBrief,
  type LoopContext,
  type LoopEvent,
  type LoopMachine,
  type LoopOutcome,
  type LoopPassView,
  auditOutcomeOf,
} from "../../machines/loop/loop.machine"
import type { EffectArgs, Implementations } from "../lifecycle/lifecycle.definition"
import type { Clock, Logger } from "../lifecycle/lifecycle.ports"
import { loopBriefText, loopEndText } from "./loop.brief"
import type { LoopReviews, LoopSessions, LoopWorktrees } from "./loop.ports"

// The loop machine's effects, supplied by the harness. The worktree is made before a new loop is recorded (a loop
// whose worktree failed never exists); a session is opened in the background and reported back as an event, so the
// step that asked for it is committed first; a brief that cannot be sent fails its step. The session's effects are the
// pass's (loop.pass.machine.ts): the host runs them with the pass's context over the loop's.

export interface LoopImplementationDeps {
  worktrees: LoopWorktrees
  sessions: LoopSessions
  /** Hands an event an effect produced back to the loop; it is applied after the step that asked for the effect. */
  report: (loopName: string, event: LoopEvent) => void
  /** This process, as the driver of the sessions it opens. */
  driver: string
  /** Where the open findings and the audit history are kept. */
  reviews: LoopReviews
  clock: Clock
  log: Logger
}

export function createLoopImplementations(deps: LoopImplementationDeps) {
  return {
    actions: {
      createWorktree: async ({ context }: EffectArgs<LoopMachine>) => {
        await deps.worktrees.create(context.worktree)
      },
      reopenWorktree: async ({ context }: EffectArgs<LoopMachine>) => {
        await deps.worktrees.reopen(context.worktree)
      },
      openSession: ({ context }: EffectArgs<LoopMachine>, { role }: { role: LoopRole }) => {
        const { loopName, iteration, title, restarts } = context
        const restarted = restarts.length === 0 ? "" : ` (restart ${restarts.length})`
        deps.sessions.open(`Loop ${loopName} · pass ${iteration}${restarted} · ${role} · ${title}`).then(
          (session) => deps.report(loopName, { type: "loop.session.opened", session, driver: deps.driver }),
          (error: unknown) => deps.report(loopName, { type: "loop.session.failed", error: errorText(error) }),
        )
      },
      sendBrief: async ({ context }: EffectArgs<LoopMachine>, { brief, phase }: { brief: LoopBrief; phase: LoopPhase }) => {
        if (context.session === null) throw new Error(`loop ${context.loopName} has no session to brief`)
        if (!isPassView(context)) throw new Error(`loop ${context.loopName}: a brief is its pass's, and this one came without it`)
        await deps.sessions.send(context.session, loopBriefText(context, phase, brief))
      },
      // Ending a loop never waits on its session: a session that cannot be stopped is logged and left.
      stopSession: async ({ context }: EffectArgs<LoopMachine>) => {
        if (context.session === null) return
        await deps.sessions
          .stop(context.session)
          .catch((error: unknown) => deps.log.warn(`loop ${context.loopName}: could not stop ${context.session}: ${String(error)}`))
      },
      // The host commits a clean section's work (`section N: <title>`), so the branch tells the story and no pass ever
      // needs to write .git. A commit that fails is logged, never fails the audit: the ending says what git has.
      commitSection: async ({ context }: EffectArgs<LoopMachine>, params?: { final: boolean; post?: boolean }) => {
        const message = commitMessage(context, params?.final === true, params?.post === true)
        await deps.worktrees
          .commitAll(context.worktree, message)
          .catch((error: unknown) => deps.log.warn(`loop ${context.loopName}: could not commit "${message}": ${errorText(error)}`))
      },
      // The loop's open findings, kept where review_read reads them. Written after the step (the step itself holds the
      // workspace database), in order; the loop's own record is what decides, so a failure is logged.
      storeFindings: ({ context }: EffectArgs<LoopMachine>) => {
        deps.reviews
          .store(context.loopName, context.findings, context.session ?? "", deps.clock.now())
          .catch((error: unknown) => deps.log.warn(`loop ${context.loopName}: could not keep its findings for review_read: ${errorText(error)}`))
      },
      // Each audit is kept, after the step as above: the coder's handoff it checked, its outcome, the findings before
      // and after.
      recordAudit: ({ context, event }: EffectArgs<LoopMachine>) => {
        const audit = auditOutcomeOf(context, event)
        if (audit === null) return
        deps.reviews
          .recordAudit({
            loopName: context.loopName,
            section: audit.section,
            pass: context.iteration,
            sessionId: context.session ?? "",
            outcome: audit.clean ? "clean" : "dirty",
            coderHandoff: context.last?.role === "coder" ? context.last : null,
            before: context.auditBefore,
            after: audit.found,
            at: deps.clock.now(),
          })
          .catch((error: unknown) => deps.log.warn(`loop ${context.loopName}: could not keep audit ${context.iteration} in its history: ${errorText(error)}`))
      },
      announce: async ({ context }: EffectArgs<LoopMachine>, { outcome }: { outcome: LoopOutcome }) => {
        const branch = await deps.worktrees.branchFacts(context.worktree).catch((error: unknown) => ({ unreadable: errorText(error) }))
        await deps.sessions
          .tell(context.hostSession, loopEndText(context, outcome, branch))
          .catch((error: unknown) => deps.log.warn(`loop ${context.loopName}: could not tell ${context.hostSession} it ${outcome}: ${String(error)}`))
      },
    },
  } satisfies Implementations<LoopMachine>
}

/**
 * `section 2: Printer`, `final audit: fixes` for what the final audit's coder passes changed, or `post-action: wrap-up`
 * for what the post-action pass changed.
 */
export function commitMessage(context: LoopContext, final: boolean, post = false): string {
  if (post) return "post-action: wrap-up"
  return final ? "final audit: fixes" : `section ${context.sectionIndex + 1}: ${context.sections[context.sectionIndex]?.title ?? ""}`
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Whether an effect runs with a pass's view of the loop (the pass's own context over the loop's). */
function isPassView(context: LoopContext): context is LoopPassView {
  return "phase" in context && "pending" in context && "nudges" in context
}
