import { type AdjustChange, passesNeeded, roleOfPhase } from "../../machines/loop/loop.gates"
import {
  type LoopEvent,
  type LoopMachine,
  type LoopStartInput,
  findingScopeOf,
  loopPassOf,
  loopPhaseOf,
  loopShellConfinement,
} from "../../machines/loop/loop.machine"
import { openBugs } from "../../machines/loop/loop.findings"
import type { ShellConfinement } from "../../machines/loop/loop.sandbox"
import type { Lifecycle } from "../lifecycle/lifecycle"
import { GateRefusal } from "../lifecycle/gate.refusal"
import type { Clock, Logger } from "../lifecycle/lifecycle.ports"
import { explainLoopRefusal } from "../../machines/loop/loop.refusals"
import { loopSlug } from "./loop.start.defaults"
import { type CompleteFields, type HandoffFields, completionFrom, handoffFrom } from "./loop.handoff"
import type { LoopSnapshot } from "./loop.lifecycle"
import type { LoopPlans, LoopSandboxes, LoopSessions, LoopWorktrees } from "./loop.ports"
import { type DriverFacts, driverLineText, mayDrive } from "../../machines/driver.claim"
import type { DriverClaims } from "../lifecycle/driver.claim"
import { LoopStallWatch } from "./loop.stall"
import { loopUsageText } from "./loop.usage"
import { launchPlan } from "./loop.launch"
import { type LoopStartRequest, loopBirthOf } from "./loop.start.input"
import { LOOP_CLAIMS, restartLoop } from "./loop.restart"
import { type SectionReadRequest, loopDetailText, loopLineText, loopStartedText, sectionReadText } from "./loop.text"

export { LOOP_CLAIMS }

export interface LoopServiceDeps {
  lifecycle: Lifecycle<LoopMachine>
  worktrees: LoopWorktrees
  sessions: LoopSessions
  plans: LoopPlans
  sandboxes: LoopSandboxes
  /** The workspace's one driver claim: the process that starts a loop holds it; a dead holder's loop is taken over. */
  claims: DriverClaims
  clock: Clock
  log: Logger
  /** How long a working pass's session may show no sign of life before its loop stalls (default 15 min). */
  stallMs?: number
}

/** A working pass's session silent this long stalls its loop, unless the loop.stallMs option says otherwise. */
export const DEFAULT_LOOP_STALL_MS = 15 * 60_000

// Every loop tool and the loop's session events go through here: the machine decides (its birth gate, the handoff
// gate, the adjust gate), the effects run in the same step, and only then the step is committed.

export class LoopService {
  readonly lifecycle: Lifecycle<LoopMachine>
  private takingOver: Promise<void> = Promise.resolve()
  private readonly stall: LoopStallWatch

  constructor(private readonly deps: LoopServiceDeps) {
    this.lifecycle = deps.lifecycle
    this.stall = new LoopStallWatch(deps.stallMs ?? DEFAULT_LOOP_STALL_MS)
  }

  async refresh(): Promise<void> {
    await this.lifecycle.refresh()
  }

  /** Whether any loop of the workspace runs, as this process knows it: without one no session is a pass. */
  hasLiveLoop(): boolean {
    for (const [, snapshot] of this.lifecycle.instances()) if (snapshot.hasTag("live")) return true
    return false
  }

  /** The running loop a session belongs to (any of its passes), as this process knows it. */
  loopOf(sessionId: string): LoopSnapshot | undefined {
    for (const [, snapshot] of this.lifecycle.instances()) if (snapshot.hasTag("live") && snapshot.context.sessions.includes(sessionId)) return snapshot
    return undefined
  }

  /**
   * The loop's gate on a tool call of one of its sessions (the audit's write-ban, the worktree): null when it may run,
   * else the machine's refusal. `paths`: the real paths the call writes or runs in.
   */
  async toolRefusal(sessionId: string, tool: string, paths: string[]): Promise<string | null> {
    if (this.loopOf(sessionId) === undefined) return null
    await this.refresh()
    const loop = this.loopOf(sessionId)
    if (loop === undefined) return null
    const event: LoopEvent = { type: "tool.use", tool, paths }
    return loop.can(event) ? null : explainLoopRefusal(loop, event)
  }

  /**
   * How a shell of a session is confined (the machine's answer): null when the session is no running loop's, or the
   * loop's sandbox is off. Synchronous and in memory: opencode asks it as a shell starts.
   */
  shellConfinement(sessionId: string): ShellConfinement | null {
    const loop = this.loopOf(sessionId)
    return loop === undefined ? null : loopShellConfinement(loop, sessionId)
  }

  /** Where the running loop a session belongs to stands, for a tool's line: its name, phase and section. */
  whereIs(sessionId: string): { loopName: string; phase: string; section: string; openBugs: number } | undefined {
    const loop = this.loopOf(sessionId)
    if (loop === undefined) return undefined
    const { loopName, sectionIndex, sections, findings } = loop.context
    const phase = loopPhaseOf(loop.value) ?? ""
    return { loopName, phase, section: `${sectionIndex + 1} of ${sections.length}`, openBugs: openBugs(findings, findingScopeOf(loop.context)) }
  }

  /** loop_start: the plan's sections in a new git worktree, the first coder session opened. */
  async start(hostSession: string, request: LoopStartRequest): Promise<string> {
    const { born } = await this.birthOf(hostSession, request)
    // The machine's birth gate first (it throws the refusal): nothing is made for a refused start.
    this.lifecycle.birth(born)
    const base = await this.deps.worktrees.head()
    const loopName = await this.freeName(request.name?.trim() || born.title)
    // Claimed before the loop exists, so no process looking for undriven loops ever sees it without its driver.
    await this.deps.claims.drive(LOOP_CLAIMS, loopName, mayDrive)
    const worktree = { ...this.deps.worktrees.placeFor(loopName), base }
    const started = await this.lifecycle.create(loopName, { ...born, loopName, worktree })
    return loopStartedText(started.context)
  }

  /**
   * loop_start {mode: "new-session"}: the plan launched in one fresh session of the forge agent, with no worktree and
   * no loop (loop_status and loop_cancel never see it). The loop's birth gate decides as for a loop (an approved plan
   * with sections, asked from outside every loop); a new session is no loop's pass, so no sandbox or pass budget is
   * asked of it.
   */
  async launch(hostSession: string, request: LoopStartRequest): Promise<string> {
    const { born, body } = await this.birthOf(hostSession, request)
    this.lifecycle.birth({ ...born, maxIterations: passesNeeded(born.sections.length) })
    return launchPlan(this.deps.sessions, { title: born.title, planPath: born.planPath, body, sections: born.sections })
  }

  /** What loop_start's birth gate decides on (loop.start.input.ts). */
  private async birthOf(hostSession: string, request: LoopStartRequest): Promise<{ born: LoopStartInput; body: string }> {
    await this.refresh()
    const { plans, sandboxes, clock, claims } = this.deps
    return loopBirthOf({ plans, sandboxes, clock, me: claims.me, loopOf: (s) => this.loopOf(s)?.context.loopName }, hostSession, request)
  }

  /** loop_handoff: the phase session's record, applied when its turn ends (the last one of a turn wins). */
  async handoff(sessionId: string, fields: HandoffFields): Promise<string> {
    const loop = await this.requireLoopOf(sessionId, "loop_handoff")
    const phase = loopPhaseOf(loop.value)
    const handoff = handoffFrom(fields, phase === undefined ? "coder" : roleOfPhase(phase))
    const replaced = (loopPassOf(loop)?.context.pending ?? null) !== null && loop.context.session === sessionId
    const busy = await this.busyUnder(sessionId)
    await this.lifecycle.dispatch(loop.context.loopName, { type: "loop.handoff", session: sessionId, handoff, busy })
    return `Handoff recorded${replaced ? " (it replaces the one recorded earlier this turn)" : ""} — end your turn now; make no further changes.`
  }

  /** The pass's subagents still working; when opencode cannot say, none (the loop is not stopped by Forge's trouble). */
  private async busyUnder(sessionId: string): Promise<string[]> {
    return this.deps.sessions.busyUnder(sessionId).catch((error: unknown) => {
      this.deps.log.warn(`loop handoff: could not read which sessions under ${sessionId} still work: ${String(error)}`)
      return []
    })
  }

  /** loop_complete: the post-action pass's record, applied when its turn ends; the loop ends with it. */
  async complete(sessionId: string, fields: CompleteFields): Promise<string> {
    const loop = await this.requireLoopOf(sessionId, "loop_complete")
    const busy = await this.busyUnder(sessionId)
    await this.lifecycle.dispatch(loop.context.loopName, { type: "loop.handoff", session: sessionId, handoff: completionFrom(fields), busy })
    return `Completion recorded (${fields.outcome}) — end your turn now; the loop ends when it does.`
  }

  /** loop_adjust: the auditor of a section edits the section under audit in place, replaces the ones after it, or both. */
  async adjust(sessionId: string, change: AdjustChange, rationale: string): Promise<string> {
    const loop = await this.requireLoopOf(sessionId, "loop_adjust")
    const after = await this.lifecycle.dispatch(loop.context.loopName, {
      type: "loop.adjust",
      session: sessionId,
      ...(change.current === undefined ? {} : { current: change.current }),
      ...(change.pending === undefined ? {} : { pending: [...change.pending] }),
      rationale,
      now: this.deps.clock.now(),
    })
    const { sections, sectionIndex } = after.context
    const rest = sections.slice(sectionIndex + 1).map((s, i) => `${sectionIndex + i + 2}. ${s.title}`)
    const edited = change.current === undefined ? "" : ` Section ${sectionIndex + 1} under audit now reads: ${sections[sectionIndex]?.title ?? ""}.`
    return `Sections amended (amendment ${after.context.amendments.length}).${edited} Pending after section ${sectionIndex + 1}: ${rest.length === 0 ? "none" : rest.join("; ")}.`
  }

  /** loop_cancel from `callerSession` (null: the user): the named loop, or the only running one. */
  async cancel(callerSession: string | null, name: string | undefined, reason: string): Promise<string> {
    await this.refresh()
    const loop = this.pick(name)
    const after = await this.lifecycle.dispatch(loop.context.loopName, { type: "loop.cancel", reason: `cancelled: ${reason}`, session: callerSession })
    return `Loop ${after.context.loopName} cancelled. Its work stays on branch ${after.context.worktree.branch} (${after.context.worktree.dir}).`
  }

  /** section_read: a section of the caller's loop, or its pending ones; changes nothing. */
  async sectionRead(sessionId: string, request: SectionReadRequest): Promise<string> {
    if (request.sectionIndex !== undefined && request.pendingSuffix === true) throw new Error("section_read: give section_index or pending_suffix, not both.")
    return sectionReadText((await this.requireLoopOf(sessionId, "section_read")).context, request)
  }

  /** loop_status: every loop in a line (the ones this process holds, then the finished ones on record), or one in detail. */
  async status(name: string | undefined): Promise<string> {
    await this.refresh()
    if (name !== undefined) {
      const loop = await this.namedOrFinished(name)
      const usage = await loopUsageText(loop.context, (session) => this.deps.sessions.usage(session))
      return [`${loopDetailText(loop)}${await this.driverLine(loop)}`, ...(usage.length === 0 ? [] : ["usage per role:", ...usage])].join("\n")
    }
    const held = [...this.lifecycle.instances()].map(([, s]) => s)
    const finished = (await this.lifecycle.finished()).map((f) => f.snapshot).filter((f) => !this.lifecycle.has(f.context.loopName))
    const loops = [...held, ...finished]
    if (loops.length === 0) return "No loop in this workspace. Start one from an approved plan with loop_start."
    const lines: string[] = []
    for (const loop of loops) lines.push(`${loopLineText(loop)}${await this.driverLine(loop)}`)
    return lines.join("\n")
  }

  /** loop_status {restart}: see restartLoop (loop.restart.ts). */
  async restart(name: string, force: boolean): Promise<string> {
    await this.refresh()
    return restartLoop({ ...this.deps, at: this.deps.clock.now(), namedOrFinished: (n) => this.namedOrFinished(n) }, name, force)
  }

  /** A loop this process holds, or a finished one on record (after a restart of opencode, only its record is left). */
  private async namedOrFinished(name: string): Promise<LoopSnapshot> {
    const held = this.lifecycle.snapshot(name)
    if (held !== undefined) return held
    const finished = (await this.lifecycle.finished()).find((f) => f.snapshot.context.loopName === name)
    if (finished === undefined) throw new Error(`no loop named "${name}" in this workspace (loop_status lists them).`)
    return finished.snapshot
  }

  /** A running loop needs a driver: who it is, or why nobody drives it. */
  private async driverLine(loop: LoopSnapshot): Promise<string> {
    if (!loop.hasTag("live")) return ""
    const { claim, holderAlive, now } = await this.deps.claims.facts(LOOP_CLAIMS, loop.context.loopName)
    return ` — ${driverLineText(claim, holderAlive, now)}`
  }

  /** A sign of life of a session (any of its events): the stall watch counts a working pass's silence from it. */
  noteActivity(sessionId: string): void {
    if (this.loopOf(sessionId)?.context.session === sessionId) this.stall.note(sessionId, this.deps.clock.now())
  }

  /**
   * The stall watch's look: each working pass this process drives whose session has been silent past the stall
   * timeout is reported to its loop (which stops the session and stalls).
   */
  async checkSilence(): Promise<void> {
    await this.refresh()
    const working = [...this.lifecycle.instances()]
      .map(([, loop]) => loop)
      .filter((loop) => loop.hasTag("live") && loop.context.driver === this.deps.claims.me && loopPassOf(loop)?.hasTag("working") === true)
    const sessions = working.flatMap((loop) => (loop.context.session === null ? [] : [loop.context.session]))
    for (const { session, silentMs } of this.stall.silent(sessions, this.deps.clock.now())) {
      const loop = this.loopOf(session)
      if (loop !== undefined) await this.step(loop.context.loopName, { type: "loop.session.silent", session, silentMs })
    }
  }

  /** opencode reported an error of a session's turn: its pass counts it (three in a row end the loop as errored). */
  async sessionError(sessionId: string, error: string): Promise<void> {
    const loop = this.loopOf(sessionId)
    if (loop === undefined || loop.context.session !== sessionId) return
    await this.step(loop.context.loopName, { type: "loop.session.error", session: sessionId, error })
  }

  /** A session went idle: its loop applies the recorded handoff (or reminds it once more, or stalls). */
  async sessionIdle(sessionId: string): Promise<void> {
    const loop = this.loopOf(sessionId)
    if (loop === undefined || loop.context.session !== sessionId) return
    await this.step(loop.context.loopName, { type: "loop.idle", session: sessionId })
  }

  /**
   * After a restore: this process asks to drive each running loop whose driver claim is free, its holder ended or
   * stopped renewing it (the machine's driver gate leaves a loop a live process drives to it).
   */
  resumeAll(): Promise<void> {
    return this.oneTakeOverAtATime(() => this.takeOverUndriven())
  }

  /**
   * Loops whose driver ended while this process keeps running (another opencode on the workspace exited): each is
   * taken over as after a restore. The claim is read first, so a loop its live driver runs costs no write.
   */
  takeOverLeftLoops(): Promise<void> {
    return this.oneTakeOverAtATime(async () => {
      await this.refresh()
      await this.takeOverUndriven()
    })
  }

  private async takeOverUndriven(): Promise<void> {
    for (const [loopName, snapshot] of [...this.lifecycle.instances()]) {
      if (!snapshot.hasTag("live")) continue
      const facts = await this.deps.claims.facts(LOOP_CLAIMS, loopName)
      if (facts.claim?.holder !== facts.me && this.lifecycle.can(loopName, { type: "loop.restored", driver: facts })) await this.takeOver(loopName)
    }
  }

  /**
   * Takeovers of this process run one after another, each on the loops as the one before left them: a loop this
   * process has just taken over (its session being opened again) is never taken over twice.
   */
  private oneTakeOverAtATime(work: () => Promise<void>): Promise<void> {
    const run = this.takingOver.then(work)
    this.takingOver = run.catch(() => undefined)
    return run
  }

  /**
   * Asks to drive one loop: the claim is taken only if the machine's driver gate accepts it on the claim as it stands.
   * Taken over, a session being opened is opened again, and a pass whose session runs nothing takes its idle now
   * (opencode sends none for a session this process did not run).
   */
  private async takeOver(loopName: string): Promise<void> {
    const may = (driver: DriverFacts) => this.lifecycle.can(loopName, { type: "loop.restored", driver })
    const { taken, facts } = await this.deps.claims.drive(LOOP_CLAIMS, loopName, may)
    if (!taken) return
    await this.step(loopName, { type: "loop.restored", driver: facts })
    const after = this.lifecycle.snapshot(loopName)
    const session = after?.context.session ?? null
    if (after === undefined || loopPassOf(after)?.hasTag("working") !== true || session === null) return
    try {
      if (await this.deps.sessions.isIdle(session)) await this.sessionIdle(session)
    } catch (error) {
      this.deps.log.warn(`loop ${loopName}: could not tell whether ${session} is idle after the takeover: ${String(error)}`)
    }
  }

  /** An effect's report (a session opened or not): applied after the step that asked for it. */
  report(loopName: string, event: LoopEvent): void {
    void this.step(loopName, event)
  }

  /**
   * One event the loop itself produced; a step that fails (a brief that could not be sent) ends the loop as errored.
   * Dispatched, never pre-asked: it queues behind the step in flight (an opened session's report may arrive before the
   * loop's first record is committed), and a refusal is the machine saying the event changes nothing now.
   */
  private async step(loopName: string, event: LoopEvent): Promise<void> {
    try {
      await this.lifecycle.dispatch(loopName, event)
    } catch (error) {
      if (error instanceof GateRefusal) return
      const reason = `${event.type} failed: ${error instanceof Error ? error.message : String(error)}`
      this.deps.log.warn(`loop ${loopName}: ${reason}`)
      await this.lifecycle.dispatch(loopName, { type: "loop.fail", reason }).catch((e: unknown) => this.deps.log.warn(`loop ${loopName}: ${String(e)}`))
    }
  }

  private async requireLoopOf(sessionId: string, tool: string): Promise<LoopSnapshot> {
    await this.refresh()
    const loop = this.loopOf(sessionId)
    if (loop === undefined)
      throw new Error(`${tool}: this session (${sessionId}) is not a pass of a running loop; ${tool} is for a loop's coder and auditor sessions.`)
    return loop
  }

  private pick(name: string | undefined): LoopSnapshot {
    if (name !== undefined) return this.named(name)
    const running = [...this.lifecycle.instances()].map(([, s]) => s).filter((s) => s.hasTag("live"))
    if (running.length === 1 && running[0] !== undefined) return running[0]
    if (running.length === 0) throw new Error("no loop is running in this workspace.")
    throw new Error(`${running.length} loops are running (${running.map((s) => s.context.loopName).join(", ")}): name the one to cancel.`)
  }

  private named(name: string): LoopSnapshot {
    const snapshot = this.lifecycle.snapshot(name)
    if (snapshot === undefined) throw new Error(`no loop named "${name}" in this workspace (loop_status lists them).`)
    return snapshot
  }

  /** A slug no loop, worktree folder or branch has: `name`, `name-2`, `name-3`, … */
  private async freeName(wanted: string): Promise<string> {
    const slug = loopSlug(wanted)
    for (let n = 1; ; n++) {
      const name = n === 1 ? slug : `${slug}-${n}`
      if (!this.lifecycle.has(name) && !(await this.deps.worktrees.isTaken(name))) return name
    }
  }
}
