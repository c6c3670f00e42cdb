import { rmSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import type { CrewVerdict } from "../../../machines/crew/crew.gates"
import { restoreCrews } from "../../../services/crew/crew.restore"
import { DocumentChangedError } from "../../../services/documents/document.errors"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import { allow } from "../plan/plan.helpers"
import { COMPLETE, type Process, REGISTRATION, SESSION, SUBTASKS, neverAsked, useCrewHarness } from "./crew.harness"

// The crew service over the real workspace: the close, records edited under it, and restarts.

describe("crew service: the close and restarts", () => {
  const { goal, open, fresh, record, frontmatter, history, row, transitions, dir, closeProcess } = useCrewHarness()

  describe("the close", () => {
    /** An armed crew (under a goal, so no dialog), and the governance switched as the test says. */
    async function armed(governed: boolean): Promise<{ p: Process; crewPath: string }> {
      const p = await fresh()
      goal.governs = true
      const { crewPath } = await p.service.begin(SESSION, { ...REGISTRATION, execution: "waves" }, neverAsked)
      goal.governs = governed
      return { p, crewPath }
    }

    it.each([
      [
        "an undeclared subtask",
        [...COMPLETE, { subtask: "Refactor the lexer", verdict: "PASS", evidence: "done", failures: [] }],
        'undeclared subtasks "Refactor the lexer" (the report must follow the declared plan: fold a discovery into an existing verdict, or abandon and register a new crew)',
      ],
      ["a missing verdict", [COMPLETE[0]], 'declared subtasks without a verdict: "Survey prior art"'],
      ["a repeated verdict", [...COMPLETE, { ...COMPLETE[0], subtask: "write the  parser" }], 'subtasks given more than one verdict: "Write the parser"'],
      ["a verdict without evidence", [{ ...COMPLETE[0], evidence: " " }, COMPLETE[1]], 'verdicts without evidence: "Write the parser"'],
      [
        "a FAIL with one failure report",
        [COMPLETE[0], { ...COMPLETE[1], failures: ["first: paywall"] }],
        `FAIL verdicts without both failure reports (2: the first attempt's and the retry's): "Survey prior art"`,
      ],
    ] as const)("refuses a report with %s, governed or not, and writes nothing", async (_, report, reason) => {
      for (const governed of [false, true]) {
        const { p, crewPath } = await armed(governed)
        const before = record(crewPath)
        const refused = p.service.close(SESSION, [...report] as CrewVerdict[], neverAsked)
        await expect(refused).rejects.toBeInstanceOf(GateRefusal)
        await expect(refused).rejects.toThrow(`crew close gate: the report of ${crewPath} does not match its declared plan — ${reason}.`)
        expect(record(crewPath)).toBe(before)
        expect(p.service.liveFor(SESSION)?.value).toEqual({ executing: "working" })
      }
    })

    it("closes through the crew_close dialog without a goal; the verdicts go into the record", async () => {
      const { p, crewPath } = await armed(false)
      const summaries: string[] = []
      const kept = await p.service.close(SESSION, COMPLETE, async (d) => {
        summaries.push(`${d.permission}: ${d.summary}`)
        return false
      })
      expect(kept.output).toBe(`The user did not confirm the close of ${crewPath}; it stays armed. Ask what is missing.`)
      expect(summaries).toEqual([
        'crew_close: Close crew "Ship the parser"? PASS Write the parser: npm test: 40 passed; FAIL Survey prior art: the papers are paywalled',
      ])
      const done = await p.service.close(SESSION, COMPLETE, allow)
      expect(done.output).toBe(
        [
          `Crew closed: ${crewPath} — 1 PASS, 1 FAIL.`,
          "- PASS Write the parser: npm test: 40 passed",
          "- FAIL Survey prior art: the papers are paywalled",
        ].join("\n"),
      )
      expect(frontmatter(crewPath).status).toBe("closed")
      expect(history(crewPath)).toContain(
        [
          "- 2026-11-30T03:00:00.000Z closed with verdicts:",
          '  - PASS "Write the parser": npm test: 40 passed',
          '  - FAIL "Survey prior art": the papers are paywalled',
          "    - failure report 1: first: paywall",
          "    - failure report 2: retry: paywall again",
        ].join("\n"),
      )
      expect(p.service.liveFor(SESSION)).toBeUndefined()
    })

    it("closes at once under a goal: no dialog", async () => {
      const { p, crewPath } = await armed(true)
      const done = await p.service.close(SESSION, COMPLETE, neverAsked)
      expect(done.output).toMatch(/^Crew closed: /)
      expect(frontmatter(crewPath).status).toBe("closed")
      expect((await row(p, crewPath))?.terminal).toBe(true)
    })

    it("a dialog that fails closes as a no, and its error is the call's (the kernel's ask)", async () => {
      const { p, crewPath } = await armed(false)
      const kept = p.service.close(SESSION, COMPLETE, async () => {
        throw new Error("the TUI went away")
      })
      await expect(kept).rejects.toThrow("the TUI went away")
      expect((await transitions(p, crewPath)).at(-1)).toBe("executing.closing|dialog.reject|executing.working")
      expect(frontmatter(crewPath).status).toBe("executing")
      expect(p.service.liveFor(SESSION)?.value).toEqual({ executing: "working" })
    })
  })

  it("a record edited between Forge's read and its write is never overwritten: the step is not committed", async () => {
    const p = await fresh()
    const { crewPath } = await p.service.begin(SESSION, REGISTRATION, neverAsked)
    const transitionsBefore = await transitions(p, crewPath)
    goal.governs = true
    p.files.editAfterRead = "\nA note the user saved in their editor.\n"
    const refused = p.service.begin(SESSION, { execution: "waves" }, neverAsked)
    await expect(refused).rejects.toBeInstanceOf(DocumentChangedError)
    await expect(refused).rejects.toThrow(`${crewPath} changed on disk while Forge was updating it`)
    // The edit stands; the crew, its row and its log are as they were.
    expect(record(crewPath)).toMatch(/A note the user saved in their editor\.\n$/)
    expect(frontmatter(crewPath)).toMatchObject({ status: "pending" })
    expect(frontmatter(crewPath).execution).toBeUndefined()
    expect(p.service.liveFor(SESSION)?.value).toEqual({ pending: "standby" })
    expect((await row(p, crewPath))?.state).toBe("pending.standby")
    expect(await transitions(p, crewPath)).toEqual(transitionsBefore)
    expect(await p.service.dispatchRefusal(SESSION)).toMatch(/^crew pending belt: /)
    // Asked again, the step takes the edit in and keeps it.
    await p.service.begin(SESSION, { execution: "waves" }, neverAsked)
    expect(record(crewPath)).toContain("A note the user saved in their editor.")
    expect(frontmatter(crewPath)).toMatchObject({ status: "executing", execution: "waves" })
    expect(await p.service.dispatchRefusal(SESSION)).toBeNull()
  })

  it("an allowed dialog whose record write fails closes as a no: the crew is not left in a dialog nobody can answer", async () => {
    const p = await fresh()
    const { crewPath } = await p.service.begin(SESSION, REGISTRATION, neverAsked)
    // The arm dialog opens (no record write), and the user's allow meets a record edited in between.
    p.files.editAfterRead = "\nedited while the dialog was open\n"
    await expect(p.service.begin(SESSION, { execution: "waves" }, allow)).rejects.toBeInstanceOf(DocumentChangedError)
    expect(p.service.liveFor(SESSION)?.value).toEqual({ pending: "standby" })
    expect(frontmatter(crewPath).status).toBe("pending")
    expect((await transitions(p, crewPath)).slice(1)).toEqual(["pending.standby|crew.arm|pending.arming", "pending.arming|dialog.reject|pending.standby"])
    // Asked again, it arms.
    expect((await p.service.begin(SESSION, { execution: "waves" }, allow)).output).toMatch(/^Crew armed: /)
    expect(record(crewPath)).toContain("edited while the dialog was open")
  })

  it("a crew whose record was deleted can still be abandoned (the way out its error names), and the session is free", async () => {
    const p = await fresh()
    const { crewPath } = await p.service.begin(SESSION, REGISTRATION, neverAsked)
    rmSync(path.join(dir(), crewPath))
    const missing = `crew record ${crewPath} is missing: restore the file, or abandon the crew (crew_close with abandon: true)`
    await expect(p.service.begin(SESSION, { execution: "waves" }, allow)).rejects.toThrow(missing)
    expect(p.service.liveFor(SESSION)?.value, "the failed allow closed the dialog").toEqual({ pending: "standby" })
    const gone = await p.service.abandon(SESSION, "the record is gone", allow)
    expect(gone.output).toMatch(/^Crew abandoned: /)
    expect(p.service.liveFor(SESSION)).toBeUndefined()
    expect(await p.service.dispatchRefusal(SESSION)).toBeNull()
    expect((await row(p, crewPath))?.state).toBe("abandoned")
    expect(() => record(crewPath), "nothing is written in its place").toThrow(/ENOENT/)
  })

  describe("a restart", () => {
    it("restores a pending crew: the belt holds in the new process, and the record says it was restored", async () => {
      const first = await fresh()
      const { crewPath } = await first.service.begin(SESSION, REGISTRATION, neverAsked)
      await closeProcess(first)

      const second = await open()
      expect(second.service.liveFor(SESSION)).toBeUndefined()
      const report = await restoreCrews(second.service.lifecycle, second.rt.repository)
      expect(report).toEqual({ restored: [crewPath], problems: [] })
      expect(second.service.liveFor(SESSION)?.value).toEqual({ pending: "standby" })
      expect(await second.service.dispatchRefusal(SESSION)).toMatch(
        /^crew pending belt: crew \.opencode\/crew\/2026-11-30-ship-the-parser\.md is registered but not armed/,
      )
      expect(frontmatter(crewPath).status).toBe("pending")
      expect(history(crewPath).split("\n").at(-1)).toBe(
        "- 2026-11-30T03:00:00.000Z restored after a restart: a new opencode process took the crew over from the database; a dialog open before it was lost and must be asked again.",
      )
      expect((await transitions(second, crewPath)).at(-1)).toBe("pending.standby|crew.restored|pending.standby")
      // It goes on in the new process.
      const armed = await second.service.begin(SESSION, { execution: "waves" }, allow)
      expect(armed.output).toMatch(/^Crew armed: /)
      expect(await second.service.dispatchRefusal(SESSION)).toBeNull()
    })

    it("restores a crew whose dialog was open when the process died: the dialog is gone, the held report dropped", async () => {
      const first = await fresh()
      goal.governs = true
      const { crewPath } = await first.service.begin(SESSION, { ...REGISTRATION, execution: "waves" }, neverAsked)
      goal.governs = false
      // The close dialog opens and is never answered: the process dies with it.
      let opened_: () => void = () => undefined
      const dialogOpen = new Promise<void>((resolve) => {
        opened_ = resolve
      })
      void first.service.close(SESSION, COMPLETE, () => {
        opened_()
        return new Promise<boolean>(() => undefined)
      })
      await dialogOpen
      expect(first.service.liveFor(SESSION)?.context.pendingReport).toEqual(COMPLETE)
      await closeProcess(first)

      const second = await open()
      expect(await restoreCrews(second.service.lifecycle, second.rt.repository)).toEqual({ restored: [crewPath], problems: [] })
      const live = second.service.liveFor(SESSION)
      expect(live?.value).toEqual({ executing: "working" })
      expect(live?.context.pendingReport).toBeNull()
      expect(await second.service.dispatchRefusal(SESSION)).toBeNull()
      expect(history(crewPath).split("\n").at(-1)).toContain(
        "restored after a restart: a new opencode process took the crew over from the database; a dialog open before it was lost",
      )
      // The close is asked again in the new process.
      expect((await second.service.close(SESSION, COMPLETE, allow)).output).toMatch(/^Crew closed: /)
    })

    it("leaves a finished crew as history, and names a live crew whose record is gone", async () => {
      const first = await fresh()
      const done = await first.service.begin(SESSION, REGISTRATION, neverAsked)
      await first.service.begin(SESSION, { execution: "goal" }, neverAsked)
      const live = await first.service.begin("ses_other", { objective: "Other", subtasks: SUBTASKS }, neverAsked)
      await closeProcess(first)
      rmSync(path.join(dir(), live.crewPath))

      const second = await open()
      const report = await restoreCrews(second.service.lifecycle, second.rt.repository)
      expect(report.restored).toEqual([live.crewPath])
      expect(report.problems).toEqual([
        {
          instanceId: live.crewPath,
          problem: `restored, but its record was not updated: crew record ${live.crewPath} is missing: restore the file, or abandon the crew (crew_close with abandon: true)`,
        },
      ])
      expect(second.service.lifecycle.snapshot(done.crewPath)).toBeUndefined()
      expect(await second.service.dispatchRefusal("ses_other")).toMatch(/^crew pending belt: /)
    })
  })
})
