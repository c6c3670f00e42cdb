import { describe, expect, it } from "vitest"
import { restoreCrews } from "../../../services/crew/crew.restore"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import type { Confirm } from "../../../services/lifecycle/lifecycle.ports"
import { type Process, REGISTRATION, SESSION, neverAsked, useCrewHarness } from "./crew.harness"

// A user's answer names the dialog it answers (issue 24): two opencode processes on one workspace, the first asks, the
// second closes that dialog (it takes the crew over) and asks again in the same state; the first user's allow is
// refused as stale, and the second's dialog stays open for its own answer.

/** A confirm held open until the test answers it, and a promise that the dialog opened. */
function heldDialog(): { confirm: Confirm; opened: Promise<void>; answer: (allowed: boolean) => void } {
  let answer: (allowed: boolean) => void = () => undefined
  let opened: () => void = () => undefined
  const open = new Promise<void>((resolve) => {
    opened = resolve
  })
  const confirm: Confirm = () => {
    opened()
    return new Promise<boolean>((resolve) => {
      answer = resolve
    })
  }
  return { confirm, opened: open, answer: (allowed) => answer(allowed) }
}

const failure = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => undefined,
    (e: unknown) => e,
  )

describe("crew service: an answer to a dialog that closed meanwhile", () => {
  const { open, fresh, frontmatter, transitions, row } = useCrewHarness()

  /** A pending crew, and its arm dialog held open in the first process. */
  async function armAskedIn(): Promise<{ first: Process; crewPath: string; asked: ReturnType<typeof heldDialog>; call: Promise<unknown> }> {
    const first = await fresh()
    const { crewPath } = await first.service.begin(SESSION, REGISTRATION, neverAsked)
    const asked = heldDialog()
    const call = first.service.begin(SESSION, { execution: "waves" }, asked.confirm)
    await asked.opened
    expect(first.service.lifecycle.snapshot(crewPath)?.context.dialog, "the first dialog").toBe(1)
    return { first, crewPath, asked, call }
  }

  it("refuses the first process's allow once the second reopened the same dialog state; the second's dialog stays open", async () => {
    const { first, crewPath, asked, call } = await armAskedIn()
    // A second process takes the crew over (its dialog died with the old host, as far as the record knows), then asks again.
    const second = await open()
    expect(await restoreCrews(second.service.lifecycle, second.rt.repository)).toEqual({ restored: [crewPath], problems: [] })
    const reasked = heldDialog()
    const secondCall = second.service.begin(SESSION, { execution: "waves" }, reasked.confirm)
    await reasked.opened
    expect(second.service.lifecycle.snapshot(crewPath)).toMatchObject({ value: { pending: "arming" }, context: { dialog: 2 } })

    asked.answer(true)
    const error = await failure(call)
    expect(error).toBeInstanceOf(GateRefusal)
    expect((error as Error).message).toBe(
      `answer refused: it is for dialog 1 of crew ${crewPath}, which closed while it was open (dialog 2 was opened since; crew ${crewPath} is pending now: another command, or another opencode process on this workspace, moved it). This answer changes nothing. Ask again if it still matters.`,
    )
    // Nothing moved: the crew is pending, its belt holds, the second dialog is the open one.
    expect(frontmatter(crewPath).status).toBe("pending")
    expect((await row(first, crewPath))?.snapshot).toMatchObject({ value: { pending: "arming" }, context: { dialog: 2 } })
    expect(await first.service.dispatchRefusal(SESSION)).toMatch(/^crew pending belt: /)

    reasked.answer(true)
    expect(((await secondCall) as { output: string }).output).toMatch(/^Crew armed: /)
    expect(frontmatter(crewPath)).toMatchObject({ status: "executing", execution: "waves" })
    expect((await transitions(second, crewPath)).slice(1)).toEqual([
      "pending.standby|crew.arm|pending.arming",
      "pending.arming|crew.restored|pending.standby",
      "pending.standby|crew.arm|pending.arming",
      "pending.arming|dialog.allow|executing.working",
    ])
  })

  it("refuses the first process's answer once the second moved the crew out of the dialog state, naming where it is", async () => {
    const { crewPath, asked, call } = await armAskedIn()
    const second = await open()
    await restoreCrews(second.service.lifecycle, second.rt.repository)
    expect((await second.service.begin(SESSION, { execution: "waves" }, async () => true)).output).toMatch(/^Crew armed: /)

    asked.answer(false)
    const error = await failure(call)
    expect(error).toBeInstanceOf(GateRefusal)
    expect((error as Error).message).toBe(`crew ${crewPath} is not waiting on a user dialog (it is executing.working).`)
    expect(frontmatter(crewPath).status).toBe("executing")
  })
})
