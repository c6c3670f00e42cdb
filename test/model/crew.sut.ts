import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect } from "vitest"
import { type SnapshotFrom, initialTransition } from "xstate"
import type { CrewVerdict } from "../../machines/crew/crew.gates"
import { type CrewEvent, type CrewInput, crewMachine } from "../../machines/crew/crew.machine"
import { explainCrewBirthRefusal, explainCrewRefusal } from "../../machines/crew/crew.refusals"
import { restoreCrews } from "../../services/crew/crew.restore"
import { NoCrewError } from "../../services/crew/crew.service"
import { GateRefusal } from "../../services/lifecycle/gate.refusal"
import type { Confirm } from "../../services/lifecycle/lifecycle.ports"
import { ramTempDir } from "../temp.dir"
import { seedMigratedDatabase } from "./migrated.database"
import { CrewExpectation } from "./crew.agreement"
import { type CrewProcess, type Governance, openCrewProcess, rosterOf } from "./crew.process"
import { FakeClock } from "./goal.fakes"
import { type DialogAnswers, type OpenDialog, type Opening, neverAsked, outputOf, startDialogCall } from "./model.dialogs"
import type { ModelStep, ModelSut } from "../../testing"

type CrewModel = typeof crewMachine
type Snapshot = SnapshotFrom<CrewModel>

/** The one session of every model path: it registers the crew, and every crew tool call comes from it. */
export const SESSION = "ses_model"
/** The objective of the session's earlier crew, where a path's birth facts name one. */
const EARLIER_OBJECTIVE = "Survey the field"
/** Each step of a path happens a minute after the one before, so every record write has its own time. */
const STEP_MS = 60_000

/** How each dialog call answers, when the user allows it and when not. */
const ARM: DialogAnswers = { allowed: /^Crew armed: /, refused: /^The user did not arm / }
const CLOSE: DialogAnswers = { allowed: /^Crew closed: /, refused: /^The user did not confirm the close of / }
const ABANDON: DialogAnswers = { allowed: /^Crew abandoned: /, refused: /^The user kept / }
/** crew_begin {execution: "goal"} never asks: the conversion is the goal's arm dialog's business. */
const CONVERT: DialogAnswers = { allowed: /^Crew converted: /, refused: /(?!)/ }

/**
 * The one factory of the crew SUT: the real CrewService on the workspace's one LifecycleHost (SQLite in a temp
 * workspace), writing real crew records through FsCrewFiles; fakes only for the clock, the roster and the goal's
 * governance (a flag set from each event's `governed` before the service is called).
 */
export async function startCrewSut(input: CrewInput): Promise<ModelSut<CrewModel>> {
  return CrewSut.start(input)
}

class CrewSut implements ModelSut<CrewModel> {
  private dialog: OpenDialog | undefined
  /** The record and the database rows the model's steps must leave, and the check that they do. */
  private readonly expected: CrewExpectation
  /** A restart found the crew finished: the new process does not hold it (its record and row are history). */
  private forgotten = false
  /** The birth gate refused the registration: no crew, no record, no row, whatever comes after. */
  private unborn = false

  private constructor(
    private readonly dir: string,
    private readonly clock: FakeClock,
    /** The governance answer every process's service gets: whether an active goal governs the session. */
    private readonly goal: Governance,
    private process: CrewProcess,
    private readonly input: CrewInput,
  ) {
    this.expected = new CrewExpectation(dir, input, SESSION)
  }

  static async start(input: CrewInput): Promise<CrewSut> {
    const dir = ramTempDir("forge-crew-model-")
    await seedMigratedDatabase(dir)
    const clock = new FakeClock(input.createdAt)
    const goal: Governance = { governs: input.registration.governed }
    const process = await openCrewProcess(dir, clock, goal, rosterOf(input.birth.workers))
    // The session's live crew the birth facts name: registered first, through the same service.
    const earlier = input.birth.liveCrew
    if (earlier !== null) {
      const first = await process.service.begin(SESSION, { objective: EARLIER_OBJECTIVE, subtasks: [{ title: "Map the field", agent: null }] }, neverAsked)
      expect(first.crewPath, "the earlier crew's path, as the birth facts name it").toBe(earlier.crewPath)
    }
    // crew_begin {objective, subtasks}: pending; under the session's goal with execution "waves": born armed; anything
    // else the birth gate refuses, in the machine's words.
    const born = initialTransition(crewMachine, input)[0]
    const registering = process.service.begin(
      SESSION,
      {
        objective: input.objective,
        subtasks: input.subtasks,
        ...(input.lineage === null ? {} : { lineage: input.lineage }),
        ...(input.registration.execution === null ? {} : { execution: input.registration.execution }),
      },
      neverAsked,
    )
    if (born.matches("refused")) {
      const error = await registering.then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error, "the birth gate refuses the registration").toBeInstanceOf(GateRefusal)
      expect((error as Error).message, "the machine's refusal").toBe(explainCrewBirthRefusal(born))
      // The earlier crew makes room again, so the refused crew's probes meet a session without a live crew.
      if (earlier !== null) await process.service.abandon(SESSION, "make room", async () => true)
      const sut = new CrewSut(dir, clock, goal, process, input)
      sut.unborn = true
      return sut
    }
    const registered = await registering
    expect(registered.crewPath, "the crew's path").toBe(input.crewPath)
    expect(registered.output.split("\n")[0], "the registration answer leads with the record path").toBe(`Crew record: ${input.crewPath}`)
    expect(registered.output).toContain(born.matches("executing") ? "EXECUTING — born armed" : "PENDING — nothing runs yet")
    return new CrewSut(dir, clock, goal, process, input)
  }

  private get crewPath(): string {
    return this.input.crewPath
  }

  async apply(step: ModelStep<CrewModel>): Promise<void> {
    const { event, before, after, accepted } = step
    this.clock.at += STEP_MS
    this.expected.step(step, this.clock.at)
    await this.produce(event, before, after, accepted)
    await this.process.rt.host.idle()
  }

  private async produce(event: CrewEvent, before: Snapshot, after: Snapshot, accepted: boolean): Promise<void> {
    const { service } = this.process
    const finished = before.status === "done"
    const opensDialog = accepted && after.hasTag("awaiting-user")
    switch (event.type) {
      case "crew.dispatch": {
        // The task belt: asked on every task call of the session, and only of the session's live crew.
        const refusal = await service.dispatchRefusal(SESSION)
        if (finished) return expect(refusal, "a finished crew holds no belt").toBeNull()
        expect(refusal === null, "the task belt lets the dispatch through").toBe(accepted)
        if (refusal !== null) expect(refusal).toBe(explainCrewRefusal(before, event))
        return
      }
      case "crew.arm": {
        this.goal.governs = event.governed
        return this.outcome(
          this.opening(ARM, (confirm) => service.begin(SESSION, { execution: "waves" }, confirm)),
          { before, event, accepted, opensDialog, finished },
          ARM,
        )
      }
      case "crew.convert": {
        this.goal.governs = event.governed
        return this.outcome(
          this.opening(CONVERT, (confirm) => service.begin(SESSION, { execution: "goal" }, confirm)),
          { before, event, accepted, opensDialog, finished },
          CONVERT,
        )
      }
      case "crew.close": {
        this.goal.governs = event.governed
        return this.outcome(
          this.opening(CLOSE, (confirm) => service.close(SESSION, event.report as CrewVerdict[], confirm)),
          { before, event, accepted, opensDialog, finished },
          CLOSE,
        )
      }
      case "crew.abandon": {
        this.goal.governs = event.governed
        return this.outcome(
          this.opening(ABANDON, (confirm) => service.abandon(SESSION, event.reason, confirm)),
          { before, event, accepted, opensDialog, finished },
          ABANDON,
        )
      }
      case "dialog.allow":
      case "dialog.reject": {
        if (this.dialog !== undefined && event.dialog !== before.context.dialog) return this.staleAnswer(event, before, accepted)
        const dialog = this.dialog
        this.dialog = undefined
        if (dialog === undefined) return expect(accepted, `${event.type} needs an open dialog`).toBe(false)
        expect(accepted, `the model takes the answer to the open dialog`).toBe(true)
        const allowed = event.type === "dialog.allow"
        dialog.answer(allowed)
        return expect(outputOf(await dialog.done), "the call's answer").toMatch(allowed ? dialog.answers.allowed : dialog.answers.refused)
      }
      case "crew.restored":
        return this.restart(accepted)
      case "crew.document.changed": {
        // Someone (the user, the model's edit or sed) rewrites the record's status line; /crew looks at it first.
        const file = path.join(this.dir, this.crewPath)
        writeFileSync(file, readFileSync(file, "utf8").replace(/^status: .*$/m, `status: ${event.status}`))
        await service.latestLive(SESSION)
        return
      }
    }
  }

  /** A crew tool call: refused as the machine refuses (or as no live crew), its dialog opened, or its answer given. */
  private async outcome(
    attempt: Promise<Opening>,
    step: { before: Snapshot; event: CrewEvent; accepted: boolean; opensDialog: boolean; finished: boolean },
    answers: DialogAnswers,
  ): Promise<void> {
    if (step.finished) {
      // The session has no live crew any more: every crew call is refused before the machine is asked.
      await expect(attempt).rejects.toBeInstanceOf(NoCrewError)
      return
    }
    if (!step.accepted) {
      const error = await attempt.then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error, `${step.event.type} must be refused`).toBeInstanceOf(GateRefusal)
      expect((error as Error).message, "the machine's refusal").toBe(explainCrewRefusal(step.before, step.event))
      return
    }
    const opening = await attempt
    expect(opening.opened, "the dialog opened").toBe(step.opensDialog)
    if (!opening.opened) expect(outputOf(opening.result), "the call's answer").toMatch(answers.allowed)
  }

  /**
   * A user's answer to a dialog that has closed meanwhile (as from another process that asked before this dialog
   * opened): it reaches the crew through the service's lifecycle, is refused in the machine's words, and the dialog
   * this process holds stays open.
   */
  private async staleAnswer(event: CrewEvent, before: Snapshot, accepted: boolean): Promise<void> {
    expect(accepted, "the model refuses an answer to a closed dialog").toBe(false)
    const error = await this.process.service.lifecycle.dispatch(this.crewPath, event).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error, "a stale answer is refused").toBeInstanceOf(GateRefusal)
    expect((error as Error).message, "the machine's refusal").toBe(explainCrewRefusal(before, event))
    expect(this.process.service.lifecycle.snapshot(this.crewPath)?.context.dialog, "the held dialog is still the open one").toBe(before.context.dialog)
  }

  /**
   * A real restart: the process dies (an open dialog dies with it, unanswered), a new one composes the workspace on
   * the same folder and database, defines the crew lifecycle again and restores the live crews.
   */
  private async restart(accepted: boolean): Promise<void> {
    // The old process's dialog is never answered: its call waits forever, as it would in a process that is gone.
    this.dialog = undefined
    await this.process.rt.close()
    this.process = await openCrewProcess(this.dir, this.clock, this.goal, rosterOf(this.input.birth.workers))
    const report = await restoreCrews(this.process.service.lifecycle, this.process.rt.repository)
    expect(report.problems, "restore problems").toEqual([])
    expect(report.restored, "the crews restored").toEqual(accepted ? [this.crewPath] : [])
    if (!accepted) this.forgotten = true
  }

  /** The service, the record and the database all say what the model says. */
  async agreesWith(model: Snapshot): Promise<void> {
    const { service, rt } = this.process
    await rt.host.idle()
    if (this.unborn) return this.expected.agreesUnborn(model, service)
    return this.expected.agreesWith(model, { service, dialog: this.dialog, forgotten: this.forgotten })
  }

  async stop(): Promise<void> {
    // A dialog still open is answered no (its call ends; what it dispatches no longer matters).
    const dialog = this.dialog
    this.dialog = undefined
    if (dialog !== undefined) {
      dialog.answer(false)
      await dialog.done.catch(() => undefined)
    }
    await this.expected.close()
    await this.process.rt.close()
  }

  /** Starts a call that may ask the user; resolves once its dialog is open (held until answered) or the call ended. */
  private opening(answers: DialogAnswers, run: (confirm: Confirm) => Promise<unknown>): Promise<Opening> {
    return startDialogCall(answers, run, (dialog) => {
      expect(this.dialog, "one dialog at a time").toBeUndefined()
      this.dialog = dialog
    })
  }
}
