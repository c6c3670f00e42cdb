import { describe, expect, it } from "vitest"
import { FsGoalFiles } from "../../../adapters/workspace/goal.files"
import { defineGoalLifecycle } from "../../../services/goal/goal.lifecycle"
import { takeOverDialog } from "../../../services/goal/goal.restore"
import { GoalService } from "../../../services/goal/goal.service"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import type { ComposedRuntime } from "../../../src/runtime"
import { memoryLogger, openRuntime, useRuntime } from "../plan/plan.helpers"
import { ONE_CHECK_CONTRACT } from "./goal.contract.fixture"

// Two opencode processes on one workspace (two composed runtimes on its one database). The first asks the user to
// arm a goal; meanwhile the second closes that dialog (the process that showed it looked gone) and asks again: the
// same state, another dialog. The first user's late allow is refused with the stale-answer text and changes nothing;
// the second dialog's own answer still counts.

function goalProcess(rt: ComposedRuntime, clock: { now(): number }) {
  const log = memoryLogger()
  const files = new FsGoalFiles(rt.workspace)
  const lifecycle = defineGoalLifecycle(rt.host, { files, clock, log, prompter: { send: async () => {} } })
  const service = new GoalService({
    lifecycle,
    files,
    clock,
    log,
    hasDraftPlan: async () => false,
    checks: { run: async () => ({ pass: true, summary: "exit code 0", outputTail: "" }) },
  })
  return { lifecycle, service }
}

/** A confirm the test answers by hand: `asked` resolves once the dialog is shown. */
function heldDialog() {
  let answer: (allowed: boolean) => void = () => undefined
  let shown: () => void = () => undefined
  const asked = new Promise<void>((resolve) => (shown = resolve))
  const confirm = () => {
    shown()
    return new Promise<boolean>((resolve) => (answer = resolve))
  }
  return { confirm, asked, answer: (allowed: boolean) => answer(allowed) }
}

describe("a goal's dialog answered in one process after another process reopened it", () => {
  const ctx = useRuntime()

  it("refuses the first user's allow with the stale-answer text; the second dialog's allow arms the goal", async () => {
    const here = goalProcess(ctx.rt, ctx.ws.clock)
    const otherRuntime = await openRuntime(ctx.ws.dir, ctx.ws.clock)
    try {
      const there = goalProcess(otherRuntime, ctx.ws.clock)
      const first = heldDialog()
      const writing = here.service.write("s1", ONE_CHECK_CONTRACT, { by: "model", confirm: first.confirm })
      await first.asked
      const [goalPath] = await ctx.rt.repository.instanceIds("goal")
      if (goalPath === undefined) throw new Error("no goal written")
      expect(here.lifecycle.snapshot(goalPath)?.context.dialog, "the first dialog").toBe(1)

      // The other process closes that dialog and arms the goal again through a dialog of its own.
      await there.service.refresh()
      expect(await takeOverDialog(there.lifecycle, goalPath), "the first dialog closed").toBe(true)
      const second = heldDialog()
      const rearming = there.service.resume("s1", { by: "model", confirm: second.confirm })
      await second.asked
      const reopened = there.lifecycle.snapshot(goalPath)
      expect(reopened?.value).toEqual({ queued: "arming" })
      expect(reopened?.context.dialog, "the second dialog").toBe(2)

      first.answer(true)
      const late = await writing.then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(late).toBeInstanceOf(GateRefusal)
      expect((late as Error).message).toBe(
        `answer refused: it is for dialog 1 of goal ${goalPath}, which closed while it was open (dialog 2 was opened since; goal ${goalPath} is queued now: another command, or another opencode process on this workspace, moved it). This answer changes nothing. Ask again if it still matters.`,
      )
      const stored = await ctx.rt.repository.getSnapshot("goal", goalPath)
      expect(stored?.snapshot, "the second dialog is still open").toMatchObject({ value: { queued: "arming" }, context: { dialog: 2, armedAt: null } })

      second.answer(true)
      expect((await rearming).output).toMatch(/^Goal armed: /)
      expect((await ctx.rt.repository.getSnapshot("goal", goalPath))?.snapshot).toMatchObject({ value: { active: "working" }, context: { dialog: 2 } })
    } finally {
      await otherRuntime.close()
    }
  })
})
