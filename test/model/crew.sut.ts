import { existsSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect } from "vitest"
import { type SnapshotFrom, initialTransition } from "xstate"
import { type LifecycleStore, openLifecycleStore } from "../../adapters/storage/lifecycle.store"
import { FsCrewFiles } from "../../adapters/workspace/crew.files"
import type { CrewVerdict } from "../../machines/crew.gates"
import { type CrewEvent, type CrewInput, type CrewRecordChange, crewMachine } from "../../machines/crew.machine"
import { explainCrewBirthRefusal, explainCrewRefusal } from "../../machines/crew.refusals"
import { crewStatusOf } from "../../machines/crew.status"
import { stateToString } from "../../machines/state.text"
import { crewFrontmatterCodec } from "../../services/crew/crew.frontmatter"
import { defineCrewLifecycle } from "../../services/crew/crew.lifecycle"
import type { CrewRoster, CrewRosterSource } from "../../services/crew/crew.ports"
import { CREW_DIR } from "../../services/crew/crew.paths"
import { restoreCrews } from "../../services/crew/crew.restore"
import { CrewService, NoCrewError } from "../../services/crew/crew.service"
import { GateRefusal } from "../../services/lifecycle/gate.refusal"
import type { Confirm } from "../../services/lifecycle/lifecycle.ports"
import { type ComposedRuntime, composeWorkspace } from "../../src/runtime"
import { memoryLogger } from "../integration/plan/plan.helpers"
import { ramTempDir } from "../temp.dir"
import { seedMigratedDatabase } from "./migrated.database"
import { FakeClock } from "./goal.fakes"
import type { ModelStep, ModelSut } from "./model.template"

type CrewModel = typeof crewMachine
type Snapshot = SnapshotFrom<CrewModel>

/** The one session of every model path: it registers the crew, and every crew tool call comes from it. */
export const SESSION = "ses_model"
/** Each step of a path happens a minute after the one before, so every record write has its own time. */
const STEP_MS = 60_000

/** Two dispatchable forge-* workers in the project's pool. */
const ROSTER: CrewRoster = {
  text: "project (.opencode/forge.json, primary):\n- forge-coder: writes and runs code\n- forge-research: reads and reports",
  dispatchable: 2,
  findings: [],
}
const roster: CrewRosterSource = { roster: async () => ROSTER }

/** The first words of a dialog call's answer, when the user allows it and when not. */
type DialogAnswers = { allowed: RegExp; refused: RegExp }
const ARM: DialogAnswers = { allowed: /^Crew armed: /, refused: /^The user did not arm / }
const CLOSE: DialogAnswers = { allowed: /^Crew closed: /, refused: /^The user did not confirm the close of / }
const ABANDON: DialogAnswers = { allowed: /^Crew abandoned: /, refused: /^The user kept / }
/** crew_begin {execution: "goal"} never asks: the conversion is the goal's arm dialog's business. */
const CONVERT: DialogAnswers = { allowed: /^Crew converted: /, refused: /(?!)/ }

/** A dialog the service holds open until the model's next dialog event answers it. */
interface OpenDialog {
  answers: DialogAnswers
  answer: (allowed: boolean) => void
  done: Promise<unknown>
}

/** How a call that may ask the user ended: its dialog opened (and waits), or the call ended without one. */
type Opening = { opened: true } | { opened: false; result: unknown }

/** One opencode process on the workspace: the parts a restart replaces (the workspace and its database stay). */
interface CrewProcess {
  rt: ComposedRuntime
  service: CrewService
}

/** Whether an active goal governs the session: the SUT sets it from each event's `governed` before the call. */
interface Governance {
  governs: boolean
}

/** What each record change appends to the History section (the first words after its time). */
const HISTORY_WORD: Record<CrewRecordChange, string> = {
  created: "registered",
  armed: "armed",
  converted: "converted",
  closed: "closed",
  abandoned: "abandoned",
  restored: "restored",
}

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
  /** The History entries the record must hold, as their first word, in order. */
  private readonly history: string[] = [HISTORY_WORD.created]
  /** The steps' expected transition rows. */
  private readonly log: { event: string; to: string }[]
  /** When the record was last written (its `updated`). */
  private updatedAt: number
  /** The record's `execution` field. */
  private execution: "waves" | "goal" | undefined
  /** A restart found the crew finished: the new process does not hold it (its record and row are history). */
  private forgotten = false
  /** The birth gate refused the registration: no crew, no record, no row, whatever comes after. */
  private unborn = false
  private reader: LifecycleStore | undefined

  private constructor(
    private readonly dir: string,
    private readonly clock: FakeClock,
    /** The governance answer every process's service gets: whether an active goal governs the session. */
    private readonly goal: Governance,
    private process: CrewProcess,
    private readonly input: CrewInput,
  ) {
    this.updatedAt = input.createdAt
    this.execution = input.registration.execution === "waves" ? "waves" : undefined
    this.log = [{ event: "xstate.init", to: stateToString(initialTransition(crewMachine, input)[0].value) }]
  }

  static async start(input: CrewInput): Promise<CrewSut> {
    const dir = ramTempDir("forge-crew-model-")
    await seedMigratedDatabase(dir)
    const clock = new FakeClock(input.createdAt)
    const goal: Governance = { governs: input.registration.governed }
    const process = await openProcess(dir, clock, goal)
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

  async apply({ event, before, after, accepted, actions }: ModelStep<CrewModel>): Promise<void> {
    this.clock.at += STEP_MS
    if (accepted && event.type !== "crew.dispatch") this.log.push({ event: event.type, to: stateToString(after.value) })
    for (const action of actions) {
      if (action.type !== "writeRecord") continue
      const { change } = action.params as { change: CrewRecordChange }
      this.history.push(HISTORY_WORD[change])
      this.updatedAt = this.clock.at
      if (change === "armed") this.execution = "waves"
      if (change === "converted") this.execution = "goal"
    }
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
   * A real restart: the process dies (an open dialog dies with it, unanswered), a new one composes the workspace on
   * the same folder and database, defines the crew lifecycle again and restores the live crews.
   */
  private async restart(accepted: boolean): Promise<void> {
    // The old process's dialog is never answered: its call waits forever, as it would in a process that is gone.
    this.dialog = undefined
    await this.process.rt.close()
    this.process = await openProcess(this.dir, this.clock, this.goal)
    const report = await restoreCrews(this.process.service.lifecycle, this.process.rt.repository)
    expect(report.problems, "restore problems").toEqual([])
    expect(report.restored, "the crews restored").toEqual(accepted ? [this.crewPath] : [])
    if (!accepted) this.forgotten = true
  }

  /** The service, the record and the database all say what the model says. */
  async agreesWith(model: Snapshot): Promise<void> {
    const { service, rt } = this.process
    await rt.host.idle()
    const live = model.hasTag("live")
    if (this.unborn) return this.agreesUnborn(model)

    // The service.
    const snapshot = service.lifecycle.snapshot(this.crewPath)
    if (this.forgotten) {
      expect(model.status, "only a finished crew is left behind by a restart").toBe("done")
      expect(snapshot, "a finished crew is not restored").toBeUndefined()
    } else {
      expect(snapshot?.value, "service state").toEqual(model.value)
      expect(snapshot?.status, "service status").toBe(model.status)
      expect(snapshot?.context, "service context").toEqual(model.context)
    }
    expect(service.liveFor(SESSION)?.context.crewPath, "the session's live crew").toBe(live ? this.crewPath : undefined)
    if (model.hasTag("awaiting-user")) expect(this.dialog, "an open dialog").toBeDefined()
    else expect(this.dialog, "no dialog open").toBeUndefined()

    // The record.
    const text = readFileSync(path.join(this.dir, this.crewPath), "utf8")
    const { fields } = crewFrontmatterCodec.parse(text, this.crewPath)
    // A live crew's record may say a status the crew holds pending the user; a finished one's says where it ended.
    const held = model.status === "active" ? model.context.pendingDocument : null
    expect(fields.status, "record status").toBe(held ?? crewStatusOf(model.value))
    expect(fields.session, "record session").toBe(SESSION)
    expect(fields.lineage, "record lineage").toBe(this.input.lineage ?? undefined)
    expect(fields.execution, "record execution").toBe(this.execution)
    expect(fields.created, "record created").toBe(new Date(this.input.createdAt).toISOString())
    expect(fields.updated, "record updated").toBe(new Date(this.updatedAt).toISOString())
    const entries = historyEntries(text)
    expect(
      entries.map((e) => e.word),
      "History entries",
    ).toEqual(this.history)
    const last = entries.at(-1)
    expect(last?.at, "the last History entry's time").toBe(new Date(this.updatedAt).toISOString())
    if (last?.word === "abandoned") expect(last.text, "the abandon reason").toContain(model.context.reason ?? "(none given)")
    if (last?.word === "closed") {
      const verdicts = (model.context.report ?? []).map((v) => `- ${v.verdict} "${v.subtask}": ${v.evidence}`)
      for (const verdict of verdicts) expect(last.text, "the close's verdicts").toContain(verdict)
    }

    // The database, through a second connection as any other reader of the workspace would open it.
    this.reader ??= await openLifecycleStore(this.dir)
    const row = await this.reader.repository.getSnapshot("crew", this.crewPath)
    expect(row?.state, "database state").toBe(stateToString(model.value))
    expect(row?.terminal, "database terminal flag").toBe(model.status === "done")
    expect(row?.sessionId, "database session").toBe(SESSION)
    expect((row?.snapshot as { context?: unknown } | undefined)?.context, "database context").toEqual(JSON.parse(JSON.stringify(model.context)))
    const transitions = await this.reader.repository.listTransitions({ instanceId: this.crewPath })
    expect(transitions.at(-1)?.to, "last logged transition").toBe(stateToString(model.value))
    expect(
      transitions.map(({ event, to }) => ({ event, to })),
      "transition rows",
    ).toEqual(this.log)
  }

  /** A refused registration left nothing: no crew in the service, no record file, no database row. */
  private async agreesUnborn(model: Snapshot): Promise<void> {
    const { service } = this.process
    expect(model.value, "the model stays refused").toBe("refused")
    expect(service.lifecycle.snapshot(this.crewPath), "no crew in the service").toBeUndefined()
    expect(service.liveFor(SESSION), "no live crew in the session").toBeUndefined()
    expect(existsSync(path.join(this.dir, CREW_DIR)), "no crew record written").toBe(false)
    this.reader ??= await openLifecycleStore(this.dir)
    expect(await this.reader.repository.getSnapshot("crew", this.crewPath), "no database row").toBeUndefined()
    expect(await this.reader.repository.listTransitions({ instanceId: this.crewPath }), "no transition rows").toEqual([])
  }

  async stop(): Promise<void> {
    // A dialog still open is answered no (its call ends; what it dispatches no longer matters).
    const dialog = this.dialog
    this.dialog = undefined
    if (dialog !== undefined) {
      dialog.answer(false)
      await dialog.done.catch(() => undefined)
    }
    await this.reader?.close()
    await this.process.rt.close()
  }

  /** Starts a call that may ask the user; resolves once its dialog is open (held until answered) or the call ended. */
  private opening(answers: DialogAnswers, run: (confirm: Confirm) => Promise<unknown>): Promise<Opening> {
    return new Promise((resolve, reject) => {
      let answer: (allowed: boolean) => void = () => undefined
      const asked = new Promise<boolean>((res) => {
        answer = res
      })
      const done = run(() => {
        expect(this.dialog, "one dialog at a time").toBeUndefined()
        this.dialog = { answers, answer, done }
        resolve({ opened: true })
        return asked
      })
      done.then((result) => resolve({ opened: false, result }), reject)
    })
  }
}

/** A process on the workspace: composed on the folder (its database), the crew lifecycle defined on its one host. */
async function openProcess(dir: string, clock: FakeClock, goal: Governance): Promise<CrewProcess> {
  // As src/crews.ts composes the harness on the workspace's one host, with the edges swapped for the fakes.
  const log = memoryLogger()
  const workspace = composeWorkspace({ workspace: dir, clock, log })
  const files = new FsCrewFiles(dir)
  const lifecycle = defineCrewLifecycle(workspace.host, { files, clock })
  const service = new CrewService({ lifecycle, files, clock, log, roster, isGoverned: async () => goal.governs })
  const rt = await workspace.open()
  return { rt, service }
}

/** The History section's entries: each one's time, its first word, and its whole text (continuation lines included). */
function historyEntries(text: string): { at: string; word: string; text: string }[] {
  const section = text.split(/^## History$/m)[1] ?? ""
  const entries: { at: string; word: string; text: string }[] = []
  for (const line of section.split("\n")) {
    const head = /^- (\S+) (\w+)/.exec(line)
    if (head !== null) entries.push({ at: head[1] as string, word: head[2] as string, text: line })
    else if (line.startsWith("  ") && entries.length > 0) (entries.at(-1) as { text: string }).text += `\n${line.trimStart()}`
  }
  return entries
}

/** The confirm of a call that must not ask the user. */
const neverAsked: Confirm = async () => {
  throw new Error("this call must not ask the user")
}

function outputOf(result: unknown): string {
  return (result as { output?: string } | undefined)?.output ?? ""
}
