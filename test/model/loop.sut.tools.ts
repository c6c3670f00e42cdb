import { expect } from "vitest"
import type { SnapshotFrom } from "xstate"
import type { LoopHandoff, PostActionHandoff } from "../../machines/loop/loop.gates"
import type { LoopEvent, loopMachine } from "../../machines/loop/loop.machine"
import type { CompleteFields, HandoffFields } from "../../services/loop/loop.handoff"
import type { LoopReviewService } from "../../services/loop/loop.review"
import type { LoopService } from "../../services/loop/loop.service"
import type { FakeClock } from "./goal.fakes"
import { expectRefusal } from "./loop.agreement"
import { LOOP } from "./loop.world"

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
