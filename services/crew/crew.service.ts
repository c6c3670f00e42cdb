import type { CrewSubtask, CrewVerdict } from "../../machines/crew/crew.gates"
import type { CrewEvent, CrewInput, CrewMachine } from "../../machines/crew/crew.machine"
import { explainCrewRefusal } from "../../machines/crew/crew.refusals"
import { type CrewStatus, crewStatusOf } from "../../machines/crew/crew.status"
import { splitFrontmatter } from "../documents/frontmatter.block"
import { ExclusiveKeyTaken } from "../lifecycle/exclusive.key"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { Clock, Confirm, DialogRequest, Logger } from "../lifecycle/lifecycle.ports"
import { planFileName, slugify } from "../plan/plan.naming"
import { crewArmedText, crewClosedText, crewConvertedText, crewRegisteredText } from "./crew.answers"
import type { CrewSnapshot } from "./crew.lifecycle"
import { CREW_DIR } from "./crew.paths"
import type { CrewFiles, CrewGovernance, CrewRosterSource } from "./crew.ports"
import { crewFrontmatterCodec } from "./crew.frontmatter"
import { renderCrewRecord } from "./crew.record"

export interface CrewServiceDeps {
  lifecycle: Lifecycle<CrewMachine>
  files: CrewFiles
  clock: Clock
  log: Logger
  roster: CrewRosterSource
  /** Whether an active goal owned by the session governs it: the goal machine's answer. */
  isGoverned: CrewGovernance
}

/** crew_begin's arguments after their schema: a registration (objective and subtasks), an arm or conversion, or both. */
export interface CrewBeginRequest {
  objective?: string
  /** Each subtask's `files` may be left out: it then owns none. */
  subtasks?: (Omit<CrewSubtask, "files"> & { files?: string[] })[]
  lineage?: string
  execution?: "waves" | "goal"
}

/** A crew tool's answer: what the model reads, plus the crew it touched. */
export interface CrewOutcome {
  crewPath: string
  output: string
}

export class NoCrewError extends Error {
  constructor(sessionId: string) {
    super(`no live crew in this session (${sessionId}). Register one with crew_begin {objective, subtasks} (or /crew <objective>).`)
    this.name = "NoCrewError"
  }
}

// Every crew tool and the task belt go through here: the machine decides, the record is written in the same step, and
// only then the snapshot and the transition are committed. Nothing here re-decides a gate: a refusal is the machine's.

export class CrewService {
  readonly lifecycle: Lifecycle<CrewMachine>
  private readonly deps: CrewServiceDeps
  /** The record stamp last looked at per crew: an unchanged record is never read. */
  private readonly seen = new Map<string, string | undefined>()

  constructor(deps: CrewServiceDeps) {
    this.deps = deps
    this.lifecycle = deps.lifecycle
  }

  /** The session's live (pending or executing) crew, as this process knows it. */
  liveFor(sessionId: string): CrewSnapshot | undefined {
    for (const [, snapshot] of this.lifecycle.instances()) if (snapshot.hasTag("live") && snapshot.context.sessionId === sessionId) return snapshot
    return undefined
  }

  async refresh(): Promise<void> {
    await this.lifecycle.refresh()
  }

  /** The pending belt on the task tool: null when the session may dispatch, else the machine's refusal. */
  async dispatchRefusal(sessionId: string): Promise<string | null> {
    await this.refresh()
    const crew = this.liveFor(sessionId)
    if (crew === undefined) return null
    const event: CrewEvent = { type: "crew.dispatch" }
    return crew.can(event) ? null : explainCrewRefusal(crew, event)
  }

  /** crew_begin: registers a declared plan (pending, or born armed under the session's goal), or arms/converts the pending crew. */
  async begin(sessionId: string, request: CrewBeginRequest, confirm: Confirm): Promise<CrewOutcome> {
    await this.refresh()
    const governed = await this.deps.isGoverned(sessionId)
    if (request.objective !== undefined || request.subtasks !== undefined) return this.register(sessionId, request, governed)
    const live = this.liveFor(sessionId)
    if (request.execution === undefined)
      throw new Error(
        "crew_begin needs objective and subtasks to register a crew, or execution (waves or goal) to carry out the user's choice for the pending crew.",
      )
    if (live === undefined) throw new NoCrewError(sessionId)
    const { crewPath } = live.context
    if (request.execution === "goal") {
      await this.dispatch(crewPath, { type: "crew.convert", governed })
      return { crewPath, output: crewConvertedText(live.context) }
    }
    const after = await this.dispatch(crewPath, { type: "crew.arm", governed })
    if (after.hasTag("awaiting-user")) {
      const dialog: DialogRequest = {
        permission: "crew_begin",
        subject: crewPath,
        summary: `Run crew "${headline(live.context.objective)}" in supervised waves (${live.context.subtasks.length} subtasks: ${live.context.subtasks.map((s) => s.title).join("; ")})? Its task dispatches are refused until you allow.`,
      }
      if (!(await this.ask(after, confirm, dialog)))
        return { crewPath, output: `The user did not arm ${crewPath}; it stays pending (task dispatches refused). Ask what to change, or wait.` }
    }
    return { crewPath, output: crewArmedText(live.context) }
  }

  private async register(sessionId: string, request: CrewBeginRequest, governed: boolean): Promise<CrewOutcome> {
    const now = this.deps.clock.now()
    const live = this.liveFor(sessionId)
    const roster = await this.deps.roster.roster()
    const born: CrewInput = {
      crewPath: "",
      sessionId,
      objective: request.objective?.trim() ?? "",
      subtasks: (request.subtasks ?? []).map((s) => ({ ...s, files: s.files ?? [] })),
      lineage: request.lineage?.trim() || null,
      registration: { execution: request.execution ?? null, governed },
      birth: {
        liveCrew: live === undefined ? null : { crewPath: live.context.crewPath, status: crewStatusOf(live.value) },
        workers: { dispatchable: roster.dispatchable, findings: roster.findings },
      },
      createdAt: now,
      record: "",
    }
    // The machine's birth gate first (it throws the refusal): nothing is written for a refused registration.
    const bornArmed = this.lifecycle.birth(born).matches("executing")
    const at = new Date(now).toISOString()
    const { objective, subtasks, lineage } = born
    const taken = new Set((await this.deps.files.list()).map((p) => p.slice(CREW_DIR.length + 1)))
    const crewPath = `${CREW_DIR}/${planFileName(at.slice(0, 10), slugify(headline(objective)), taken)}`
    const record = renderCrewRecord({
      frontmatter: {
        status: bornArmed ? "executing" : "pending",
        session: sessionId,
        ...(lineage === null ? {} : { lineage }),
        ...(bornArmed ? { execution: "waves" as const } : {}),
        created: at,
        updated: at,
      },
      objective,
      subtasks,
      roster: roster.text,
      registered: bornArmed
        ? `${at} registered and armed under the session's active goal (supervised waves).`
        : `${at} registered: pending, waiting for the user's choice (waves, goal, or standby).`,
    })
    await this.dispatchCreate(crewPath, { ...born, crewPath, record })
    return { crewPath, output: crewRegisteredText({ crewPath, objective, subtasks, lineage, roster, bornArmed }) }
  }

  /** crew_close with a report: the machine cross-checks it against the declared plan, then the user's dialog (ask-free under a goal). */
  async close(sessionId: string, report: CrewVerdict[], confirm: Confirm): Promise<CrewOutcome> {
    const live = await this.requireLive(sessionId)
    const { crewPath } = live.context
    const after = await this.dispatch(crewPath, { type: "crew.close", report, governed: await this.deps.isGoverned(sessionId) })
    if (after.hasTag("awaiting-user")) {
      const dialog: DialogRequest = {
        permission: "crew_close",
        subject: crewPath,
        summary: `Close crew "${headline(live.context.objective)}"? ${report.map((v) => `${v.verdict} ${v.subtask}: ${v.evidence}`).join("; ")}`,
      }
      if (!(await this.ask(after, confirm, dialog)))
        return { crewPath, output: `The user did not confirm the close of ${crewPath}; it stays armed. Ask what is missing.` }
    }
    return { crewPath, output: crewClosedText(crewPath, report) }
  }

  /** crew_close with abandon: the re-shard exit from pending or executing, no verdicts; ask-gated unless a goal governs. */
  async abandon(sessionId: string, reason: string, confirm: Confirm): Promise<CrewOutcome> {
    const live = await this.requireLive(sessionId)
    const { crewPath } = live.context
    const after = await this.dispatch(crewPath, { type: "crew.abandon", reason, governed: await this.deps.isGoverned(sessionId) })
    if (after.hasTag("awaiting-user")) {
      const dialog: DialogRequest = {
        permission: "crew_close",
        subject: crewPath,
        summary: `Abandon crew "${headline(live.context.objective)}" (${crewStatusOf(live.value)}, no verdicts)? Reason: ${reason}`,
      }
      if (!(await this.ask(after, confirm, dialog))) return { crewPath, output: `The user kept ${crewPath}.` }
    }
    return { crewPath, output: `Crew abandoned: ${crewPath}. The session is free for a new crew_begin with the corrected plan.` }
  }

  private async requireLive(sessionId: string): Promise<CrewSnapshot> {
    await this.refresh()
    const live = this.liveFor(sessionId)
    if (live === undefined) throw new NoCrewError(sessionId)
    return this.followRecord(live)
  }

  /** The session's live crew with its record looked at first (/crew and /crew confirm), or undefined. */
  async latestLive(sessionId: string): Promise<CrewSnapshot | undefined> {
    await this.refresh()
    const live = this.liveFor(sessionId)
    return live === undefined ? undefined : this.followRecord(live)
  }

  /**
   * Hands the status the crew's record says to the machine (crew.document.changed), which holds one that would pass a
   * gate the user holds (closed; executing for a pending crew). The record is read only when its stamp changed; one
   * that cannot be read keeps the crew as it is, and is logged.
   */
  async followRecord(crew: CrewSnapshot): Promise<CrewSnapshot> {
    const { crewPath } = crew.context
    const stamp = this.deps.files.stamp(crewPath)
    if (this.seen.has(crewPath) && this.seen.get(crewPath) === stamp) return crew
    this.seen.set(crewPath, stamp)
    let status: CrewStatus
    try {
      const text = await this.deps.files.read(crewPath)
      if (text === undefined) return crew
      status = crewFrontmatterCodec.read(splitFrontmatter(text, crewPath), crewPath).status
    } catch (error) {
      this.deps.log.warn(
        `crew ${crewPath}: the record changed but cannot be read (${error instanceof Error ? error.message : String(error)}); the crew stays as it is`,
      )
      return crew
    }
    const event: CrewEvent = { type: "crew.document.changed", status }
    const holds = crew.context.pendingDocument ?? crewStatusOf(crew.value)
    return holds === status || !crew.can(event) ? crew : this.dispatch(crewPath, event)
  }

  private async dispatchCreate(crewPath: string, input: Parameters<Lifecycle<CrewMachine>["create"]>[1]): Promise<void> {
    try {
      await this.lifecycle.create(crewPath, input)
    } catch (error) {
      if (error instanceof ExclusiveKeyTaken) throw new Error(`this session already has a live crew: ${error.holder}. Close or abandon it first.`)
      throw error
    }
  }

  private dispatch(crewPath: string, event: CrewEvent): Promise<CrewSnapshot> {
    return this.lifecycle.dispatch(crewPath, event)
  }

  /**
   * The dialog of a step the machine holds open (`opened`, the snapshot that opened it). The answer names that dialog:
   * the machine refuses it if the dialog closed meanwhile (another process), and the kernel closes the dialog as a no
   * when the allow cannot be committed.
   */
  private async ask(opened: CrewSnapshot, confirm: Confirm, request: DialogRequest): Promise<boolean> {
    const { crewPath, dialog } = opened.context
    const answer = (allowed: boolean): CrewEvent => (allowed ? { type: "dialog.allow", dialog } : { type: "dialog.reject", dialog })
    return (await this.lifecycle.ask(crewPath, request, confirm, answer)).allowed
  }
}

function headline(objective: string): string {
  return objective.split("\n", 1)[0]?.trim() || "crew"
}
