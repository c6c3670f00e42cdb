import { existsSync, mkdirSync } from "node:fs"
import { expect } from "vitest"
import type { SnapshotFrom } from "xstate"
import { openLifecycleStore } from "../../adapters/storage/lifecycle.store"
import { LOOP_MACHINE_VERSION, type LoopResumeInput, loopMachine } from "../../machines/loop/loop.machine"
import { explainLoopBirthRefusal } from "../../machines/loop/loop.refusals"
import { GateRefusal } from "../../services/lifecycle/gate.refusal"
import { initialStep } from "../../services/lifecycle/lifecycle.step"
import type { LoopService } from "../../services/loop/loop.service"
import type { LoopExpectation } from "./loop.agreement"
import type { FakeLoopSessions, RecordingWorktrees } from "./loop.fakes"
import type { LoopProcess } from "./loop.process"
import { type Actual, HOST, LOOP, actual } from "./loop.world"

// The loop SUT's restarts from a record (loop_status {restart} of a loop that ended): the record as the process that
// ran the loop left it (its row, its open findings, its worktree), the restart through the real service, and what a
// refused restart must leave: the record as it ended.

type Snapshot = SnapshotFrom<typeof loopMachine>

/**
 * Seeds the ended loop's record, then restarts it (`service.restart`, without force: it is not running). Resolves to
 * the input when the birth gate refused the restart (the record stays as it ended), else undefined.
 */
export async function restartFromRecord(
  process: LoopProcess,
  input: LoopResumeInput,
  worktrees: RecordingWorktrees,
  placeholders: Actual,
  expected: LoopExpectation,
): Promise<LoopResumeInput | undefined> {
  const { ended, context } = input.resume
  const stored = actual(context, placeholders)
  // What the process that ran the loop left: its worktree, its row, its open findings where review_read reads them.
  mkdirSync(stored.worktree.dir, { recursive: true })
  const record = loopMachine.resolveState({ value: ended, context: stored })
  await process.rt.repository.saveSnapshot({
    machineId: "loop",
    machineVersion: LOOP_MACHINE_VERSION,
    instanceId: LOOP,
    sessionId: HOST,
    state: ended,
    terminal: true,
    snapshot: loopMachine.getPersistedSnapshot(record),
    document: context.planPath,
    updatedAt: input.at - 1,
  })
  await process.reviews.store(LOOP, context.findings, context.sessions.at(-1) ?? "", input.at - 1)
  expect(await process.service.status(undefined), "loop_status lists the loop on record").toMatch(new RegExp(`^${LOOP}: ${ended} — `))

  const born = initialStep(loopMachine, input)
  const restarting = process.service.restart(LOOP, false)
  if ((born.snapshot as Snapshot).matches("refused")) {
    const error = await restarting.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error, "the birth gate refuses the restart").toBeInstanceOf(GateRefusal)
    expect((error as Error).message, "the machine's refusal").toBe(explainLoopBirthRefusal(born.snapshot as Snapshot))
    return input
  }
  const answer = await restarting
  expect(answer.split("\n")[0], "the restart's answer").toMatch(new RegExp(`^Loop ${LOOP} restarted from ${ended}: it is running, `))
  expect(answer, "what it kept").toContain(`${context.findings.length} open finding`)
  expect(worktrees.reopened, "its worktree, asked for again").toEqual([stored.worktree])
  expected.actions(born.requested, placeholders)
  return undefined
}

/** A refused restart left the loop as it ended: its row, no transition, nothing held, opened or made. */
export async function agreesUnrestarted(
  model: Snapshot,
  input: LoopResumeInput,
  sides: { service: LoopService; sessions: FakeLoopSessions; worktrees: RecordingWorktrees; dir: string },
): Promise<void> {
  expect(model.value, "the model stays refused").toBe("refused")
  expect(sides.service.lifecycle.snapshot(LOOP), "no loop held").toBeUndefined()
  const reader = await openLifecycleStore(sides.dir)
  try {
    const row = await reader.repository.getSnapshot("loop", LOOP)
    expect(row?.state, "the record as it ended").toBe(input.resume.ended)
    expect(row?.terminal, "still finished").toBe(true)
    expect(await reader.repository.listTransitions({ instanceId: LOOP }), "no transition rows").toEqual([])
  } finally {
    await reader.close()
  }
  expect(sides.sessions.openings, "no session opened").toEqual([])
  expect(sides.worktrees.reopened, "no worktree asked for").toEqual([])
  expect(existsSync(sides.worktrees.placeFor(LOOP).dir), "its worktree stays").toBe(true)
}
