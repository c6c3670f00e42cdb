import { expect } from "vitest"
import type { SnapshotFrom } from "xstate"
import { staleAnswerText } from "../../machines/dialog.gates"
import type { GoalEvent, goalMachine } from "../../machines/goal/goal.machine"
import { goalStatusOf } from "../../machines/goal/goal.status"
import type { GoalService } from "../../services/goal/goal.service"
import { GateRefusal } from "../../services/lifecycle/gate.refusal"
import type { OpenDialog } from "./model.dialogs"

type Snapshot = SnapshotFrom<typeof goalMachine>

/** Lets every callback already due run (sqlite3 answers on its own thread; fs/promises on the pool). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/**
 * A late answer, to a dialog the goal no longer holds open, reaches the goal's lifecycle as the kernel's `ask` would
 * dispatch it: the machine refuses it with the stale-answer text, and the dialog open now stays open, unanswered.
 */
export async function expectLateAnswerRefused(
  service: GoalService,
  goalPath: string,
  dialogs: readonly OpenDialog[],
  event: Extract<GoalEvent, { type: "dialog.allow" | "dialog.reject" }>,
  before: Snapshot,
): Promise<void> {
  const held = [...dialogs]
  const refused = await service.lifecycle.dispatch(goalPath, event).then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(refused).toBeInstanceOf(GateRefusal)
  expect((refused as Error).message).toBe(
    staleAnswerText({ subject: `goal ${goalPath}`, status: goalStatusOf(before.value), answered: event.dialog, open: before.context.dialog }),
  )
  expect(dialogs, "the dialogs held open").toEqual(held)
  const newest = held.at(-1)
  expect(newest, "the dialog open now").toBeDefined()
  const settled = await Promise.race([
    newest?.done.then(
      () => true,
      () => true,
    ),
    settle().then(() => false),
  ])
  expect(settled, "the open dialog's call is still waiting on the user").toBe(false)
  expect(service.lifecycle.snapshot(goalPath)?.context.dialog, "the dialog open now").toBe(before.context.dialog)
}
