import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import type { Confirm } from "../../../services/lifecycle/lifecycle.ports"
import type { ComposedRuntime } from "../../../src/runtime"
import { defined } from "../../defined"
import { PLAN_BODY, allow, openRuntime, tempWorkspace } from "./plan.helpers"

// Issue 24: a dialog's answer names the dialog it answers. Two opencode processes are two runtimes on one workspace
// (one SQLite database, one plan folder): when the plan moved on in the other one while the user looked at a dialog
// here — even back into the same dialog state, with a new dialog — the late answer is refused and changes nothing.

/** A confirm held open until the test answers it; `opened` resolves once the dialog is shown. */
function heldDialog(): { confirm: Confirm; opened: Promise<void>; answer: (allowed: boolean) => void } {
  let shown = () => {}
  let answer: (allowed: boolean) => void = () => {}
  const opened = new Promise<void>((resolve) => (shown = resolve))
  const answered = new Promise<boolean>((resolve) => (answer = resolve))
  return {
    confirm: () => {
      shown()
      return answered
    },
    opened,
    answer: (allowed) => answer(allowed),
  }
}

describe("a plan dialog's answer across two opencode processes on one workspace", () => {
  let ws: ReturnType<typeof tempWorkspace>
  const runtimes: ComposedRuntime[] = []
  const open = async () => {
    const rt = await openRuntime(ws.dir, ws.clock)
    runtimes.push(rt)
    return rt
  }

  beforeEach(() => {
    ws = tempWorkspace()
  })
  afterEach(async () => {
    for (const rt of runtimes.splice(0)) await rt.close()
  })

  it("the first process's allow is refused once the second closed that dialog and opened the next one in the same state", async () => {
    const here = await open()
    const { planPath } = await here.plans.write("s1", PLAN_BODY)
    const first = heldDialog()
    const approval = here.plans.approve("s1", first.confirm)
    approval.catch(() => undefined)
    await first.opened
    expect(here.registry.snapshot(planPath)?.context.dialog).toBe(1)
    // The other process starts meanwhile: no dialog survives a restore, so it closes this one; its model asks again.
    const there = await open()
    expect(there.registry.snapshot(planPath)?.value).toEqual({ draft: "editing" })
    const second = heldDialog()
    const again = there.plans.approve("s1", second.confirm)
    await second.opened
    const reopened = defined(there.registry.snapshot(planPath), "the plan in the second process")
    expect(reopened.value, "the same dialog state").toEqual({ draft: "confirming" })
    expect(reopened.context.dialog, "another dialog").toBe(2)

    first.answer(true)
    const refused = await approval.then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toBeInstanceOf(GateRefusal)
    expect((refused as Error).message).toBe(
      `answer refused: it is for dialog 1 of plan ${planPath}, which closed while it was open (dialog 2 was opened since; plan ${planPath} is draft now: another command, or another opencode process on this workspace, moved it). This answer changes nothing. Ask again if it still matters.`,
    )
    // Nothing moved: the second process's dialog is still open, writes stay banned in both.
    for (const rt of [here, there]) expect(await rt.plans.gate("s1", "write")).toContain("draft write-ban")
    expect(here.registry.snapshot(planPath)).toMatchObject({ value: { draft: "confirming" }, context: { dialog: 2 } })

    second.answer(true)
    expect((await again).output).toMatch(/^Plan approved/)
    expect(await here.plans.gate("s1", "write")).toBeNull()
  })

  it("a plan recorded before dialogs were numbered is restored, and its next dialog is the first", async () => {
    const before = await open()
    const { planPath } = await before.plans.write("s1", PLAN_BODY)
    await before.close()
    runtimes.splice(0)
    const store = await openLifecycleStore(ws.dir)
    const row = defined(await store.repository.getSnapshot("plan", planPath), `the record of ${planPath}`)
    const { dialog: _none, ...context } = (row.snapshot as { context: Record<string, unknown> }).context
    await store.repository.saveSnapshot({ ...row, snapshot: { ...(row.snapshot as object), context } })
    await store.close()

    const rt = await open()
    expect(rt.restoreReport.problems).toEqual([])
    expect(rt.registry.snapshot(planPath)?.context.dialog).toBe(0)
    expect((await rt.plans.approve("s1", allow)).output).toMatch(/^Plan approved/)
    expect(rt.registry.snapshot(planPath)?.context.dialog).toBe(1)
  })
})
