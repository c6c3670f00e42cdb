import { expect } from "vitest"
import type { SnapshotFrom } from "xstate"
import type { LoopHandoff, PostActionHandoff } from "../../machines/loop/loop.gates"
import { type LoopEvent, type loopMachine, loopPhaseOf } from "../../machines/loop/loop.machine"
import type { CompleteFields, HandoffFields } from "../../services/loop/loop.handoff"
import type { LoopReviewService } from "../../services/loop/loop.review"
import type { LoopService } from "../../services/loop/loop.service"
import type { FakeClock } from "./goal.fakes"
import { expectRefusal } from "./loop.agreement"
import { BRANCH, LOOP } from "./loop.world"

// The loop tools' arguments as the loop SUT gives them for the model's events.

/** The handoff the tool's arguments make: loop_handoff's fields that `handoffFrom` turns into `handoff`. */
export function fieldsOf(handoff: LoopHandoff): HandoffFields {
  const notes = handoff.notes === null ? {} : { notes: handoff.notes }
  if (handoff.role === "coder") return { changes: handoff.changes, deviations: handoff.deviations, verification: handoff.verification, ...notes }
  if (handoff.role === "post_action") throw new Error("a post-action record is loop_complete's (completeFieldsOf), not loop_handoff's")
  return {
    findings: handoff.findings.map(({ severity, file, line, description }) => ({
      severity,
      description,
      ...(file === null ? {} : { file }),
      ...(line === null ? {} : { line }),
    })),
    ...(handoff.summary === null ? {} : { summary: handoff.summary }),
    ...notes,
  }
}

/** loop_complete's arguments for a post-action record. */
export function completeFieldsOf(handoff: PostActionHandoff): CompleteFields {
  return { outcome: handoff.outcome, steps: handoff.steps, followUps: handoff.followUps, ...(handoff.notes === null ? {} : { notes: handoff.notes }) }
}

/**
 * loop.review.write / loop.review.delete as the loop SUT produces them: review_write / review_delete from a pass of
 * the loop, the section named as the model's event names it; the machine's review gate accepts or refuses alike.
 */
export async function applyReview(
  reviews: LoopReviewService,
  event: Extract<LoopEvent, { type: "loop.review.write" | "loop.review.delete" }>,
  before: SnapshotFrom<typeof loopMachine>,
  accepted: boolean,
): Promise<void> {
  const place = event.type === "loop.review.write" ? event.finding : event
  const section = place.section === -1 ? { crossSection: true } : { sectionIndex: place.section }
  const attempt =
    event.type === "loop.review.write"
      ? reviews.write(event.session, {
          file: event.finding.file,
          line: event.finding.line,
          severity: event.finding.severity,
          description: event.finding.description,
          ...(event.finding.scenario === null ? {} : { scenario: event.finding.scenario }),
          ...section,
        })
      : reviews.delete(event.session, { file: event.file, line: event.line, ...section })
  if (!accepted) return expectRefusal(attempt, before, event)
  const answer = await attempt
  if (event.type === "loop.review.write") expect(answer, "review_write's answer").toMatch(new RegExp(`^Finding recorded for loop ${LOOP}, `))
  else expect(answer, "review_delete's answer").toMatch(new RegExp(`^Finding at ${event.file}:${event.line} of .* deleted\\.`))
}

/**
 * loop.session.silent as the loop SUT produces it: the current pass's last sign of life, then the stall watch's look
 * once the clock has moved past the timeout; for a pass the loop has moved past, the watch's report arriving late.
 */
export async function applySilence(
  service: LoopService,
  clock: FakeClock,
  event: Extract<LoopEvent, { type: "loop.session.silent" }>,
  before: SnapshotFrom<typeof loopMachine>,
): Promise<void> {
  if (event.session !== before.context.session) return service.report(LOOP, event)
  service.noteActivity(event.session)
  clock.at += event.silentMs
  await service.checkSilence()
}

/** loop.adjust as the loop SUT produces it: loop_adjust from the session, the clock at the event's time. */
export async function applyAdjust(
  service: LoopService,
  clock: FakeClock,
  event: Extract<LoopEvent, { type: "loop.adjust" }>,
  before: SnapshotFrom<typeof loopMachine>,
  accepted: boolean,
): Promise<void> {
  clock.at = event.now
  const attempt = service.adjust(event.session, { current: event.current, pending: event.pending }, event.rationale)
  if (!accepted) return expectRefusal(attempt, before, event)
  const at = before.context.sectionIndex
  const edited = event.current === undefined ? "" : ` Section ${at + 1} under audit now reads: ${event.current.title}.`
  const pending = event.pending === undefined ? before.context.sections.slice(at + 1).map((s, i) => `${at + i + 2}. ${s.title}`) : []
  expect(await attempt, "the adjust's answer").toBe(
    `Sections amended (amendment 1).${edited} Pending after section ${at + 1}: ${pending.length === 0 ? "none" : pending.join("; ")}.`,
  )
}

/** loop.restart as the loop SUT produces it: loop_status {restart, force} from the process that drives the loop. */
export async function applyRestart(
  service: LoopService,
  clock: FakeClock,
  event: Extract<LoopEvent, { type: "loop.restart" }>,
  before: SnapshotFrom<typeof loopMachine>,
  accepted: boolean,
): Promise<void> {
  // The clock moves to the restart only for one that happens (a refused one leaves the driver's claim as it is).
  if (accepted) clock.at = event.at
  const attempt = service.restart(LOOP, event.force)
  if (!accepted) return expectRefusal(attempt, before, event)
  expect(await attempt, "the restart's answer").toMatch(new RegExp(`^Loop ${LOOP} restarted \\(forced\\) from running\\.${loopPhaseOf(before.value)}: `))
}

/** loop.cancel as the loop SUT produces it: loop_cancel, unnamed (and named, for a finished loop). */
export async function applyCancel(
  service: LoopService,
  event: Extract<LoopEvent, { type: "loop.cancel" }>,
  before: SnapshotFrom<typeof loopMachine>,
  accepted: boolean,
  worktreeDir: string,
): Promise<void> {
  const why = event.reason.replace(/^cancelled: /, "")
  expect(`cancelled: ${why}`, "loop_cancel's reason is recorded behind `cancelled: `").toBe(event.reason)
  if (before.status === "done") {
    // The only loop is over: nothing to cancel unnamed, and named it refuses in the machine's words.
    await expect(service.cancel(event.session, undefined, why)).rejects.toThrow(/^no loop is running in this workspace\.$/)
    return expectRefusal(service.cancel(event.session, LOOP, why), before, event)
  }
  // A loop's own pass asks: the machine refuses it.
  if (!accepted) return expectRefusal(service.cancel(event.session, undefined, why), before, event)
  expect(await service.cancel(event.session, undefined, why), "the cancel's answer").toBe(
    `Loop ${LOOP} cancelled. Its work stays on branch ${BRANCH} (${worktreeDir}).`,
  )
}
