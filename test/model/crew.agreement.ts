import { existsSync, readFileSync } from "node:fs"
import path from "node:path"
import { expect } from "vitest"
import { type SnapshotFrom, initialTransition } from "xstate"
import { type LifecycleStore, openLifecycleStore } from "../../adapters/storage/lifecycle.store"
import { type CrewInput, type CrewRecordChange, crewMachine } from "../../machines/crew/crew.machine"
import { crewStatusOf } from "../../machines/crew/crew.status"
import { stateToString } from "../../machines/state.text"
import { crewFrontmatterCodec } from "../../services/crew/crew.frontmatter"
import type { CrewService } from "../../services/crew/crew.service"
import type { OpenDialog } from "./model.dialogs"
import type { ModelStep } from "../../testing"

type CrewModel = typeof crewMachine
type Snapshot = SnapshotFrom<CrewModel>

/** What each record change appends to the History section (the first words after its time). */
const HISTORY_WORD: Record<CrewRecordChange, string> = {
  created: "registered",
  armed: "armed",
  converted: "converted",
  closed: "closed",
  abandoned: "abandoned",
  restored: "restored",
}

/** What the SUT holds that the agreement looks at: its current process's service, its open dialog, what a restart left. */
interface CrewSides {
  service: CrewService
  dialog: OpenDialog | undefined
  /** A restart found the crew finished: the new process does not hold it (its record and row are history). */
  forgotten: boolean
}

/**
 * The crew's world as the model's steps say it must be (its record's History, `updated` and `execution`, its
 * transition rows), and the check that the service, the record and the database all say what the model says.
 */
export class CrewExpectation {
  /** The History entries the record must hold, as their first word, in order. */
  private readonly history: string[] = [HISTORY_WORD.created]
  /** The steps' expected transition rows. */
  private readonly log: { event: string; to: string }[]
  /** When the record was last written (its `updated`). */
  private updatedAt: number
  /** The record's `execution` field. */
  private execution: "waves" | "goal" | undefined
  private reader: LifecycleStore | undefined

  constructor(
    private readonly dir: string,
    private readonly input: CrewInput,
    /** The one session of every model path. */
    private readonly session: string,
  ) {
    this.updatedAt = input.createdAt
    this.execution = input.registration.execution === "waves" ? "waves" : undefined
    this.log = [{ event: "xstate.init", to: stateToString(initialTransition(crewMachine, input)[0].value) }]
  }

  private get crewPath(): string {
    return this.input.crewPath
  }

  /** A model step taken at `at`: its transition row (a dispatch asks, and logs nothing), and what its record writes add. */
  step({ event, after, accepted, actions }: ModelStep<CrewModel>, at: number): void {
    if (accepted && event.type !== "crew.dispatch") this.log.push({ event: event.type, to: stateToString(after.value) })
    for (const action of actions) {
      if (action.type !== "writeRecord") continue
      const { change } = action.params as { change: CrewRecordChange }
      this.history.push(HISTORY_WORD[change])
      this.updatedAt = at
      if (change === "armed") this.execution = "waves"
      if (change === "converted") this.execution = "goal"
    }
  }

  /** The service, the record and the database all say what the model says. */
  async agreesWith(model: Snapshot, { service, dialog, forgotten }: CrewSides): Promise<void> {
    const live = model.hasTag("live")

    // The service.
    const snapshot = service.lifecycle.snapshot(this.crewPath)
    if (forgotten) {
      expect(model.status, "only a finished crew is left behind by a restart").toBe("done")
      expect(snapshot, "a finished crew is not restored").toBeUndefined()
    } else {
      expect(snapshot?.value, "service state").toEqual(model.value)
      expect(snapshot?.status, "service status").toBe(model.status)
      expect(snapshot?.context, "service context").toEqual(model.context)
    }
    expect(service.liveFor(this.session)?.context.crewPath, "the session's live crew").toBe(live ? this.crewPath : undefined)
    if (model.hasTag("awaiting-user")) expect(dialog, "an open dialog").toBeDefined()
    else expect(dialog, "no dialog open").toBeUndefined()

    // The record.
    const text = readFileSync(path.join(this.dir, this.crewPath), "utf8")
    const { fields } = crewFrontmatterCodec.parse(text, this.crewPath)
    // A live crew's record may say a status the crew holds pending the user; a finished one's says where it ended.
    const held = model.status === "active" ? model.context.pendingDocument : null
    expect(fields.status, "record status").toBe(held ?? crewStatusOf(model.value))
    expect(fields.session, "record session").toBe(this.session)
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
    expect(row?.sessionId, "database session").toBe(this.session)
    expect((row?.snapshot as { context?: unknown } | undefined)?.context, "database context").toEqual(JSON.parse(JSON.stringify(model.context)))
    const transitions = await this.reader.repository.listTransitions({ instanceId: this.crewPath })
    expect(transitions.at(-1)?.to, "last logged transition").toBe(stateToString(model.value))
    expect(
      transitions.map(({ event, to }) => ({ event, to })),
      "transition rows",
    ).toEqual(this.log)
  }

  /** A refused registration left nothing: no crew in the service, no record file, no database row. */
  async agreesUnborn(model: Snapshot, service: CrewService): Promise<void> {
    expect(model.value, "the model stays refused").toBe("refused")
    expect(service.lifecycle.snapshot(this.crewPath), "no crew in the service").toBeUndefined()
    expect(service.liveFor(this.session), "no live crew in the session").toBeUndefined()
    expect(existsSync(path.join(this.dir, this.crewPath)), "no crew record written").toBe(false)
    this.reader ??= await openLifecycleStore(this.dir)
    expect(await this.reader.repository.getSnapshot("crew", this.crewPath), "no database row").toBeUndefined()
    expect(await this.reader.repository.listTransitions({ instanceId: this.crewPath }), "no transition rows").toEqual([])
  }

  async close(): Promise<void> {
    await this.reader?.close()
  }
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
