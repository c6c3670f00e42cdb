import path from "node:path"
import { existsSync } from "node:fs"
import { expect } from "vitest"
import type { SnapshotFrom } from "xstate"
import { type LifecycleStore, openLifecycleStore } from "../../adapters/storage/lifecycle.store"
import { hasBlockingFindings, roleOfPhase } from "../../machines/loop/loop.gates"
import { placeOf } from "../../machines/loop/loop.findings"
import {
  type LoopBrief,
  type LoopEvent,
  type LoopOutcome,
  type LoopPassView,
  type LoopWorktree,
  loopMachine,
  auditOutcomeOf,
  loopPassOf,
  loopPhaseOf,
} from "../../machines/loop/loop.machine"
import { explainLoopRefusal } from "../../machines/loop/loop.refusals"
import { loopStatusOf } from "../../machines/loop/loop.status"
import { snapshotStateText } from "../../machines/state.text"
import { GateRefusal } from "../../services/lifecycle/gate.refusal"
import { step } from "../../services/lifecycle/lifecycle.step"
import { loopBriefText, loopEndText } from "../../services/loop/loop.brief"
import { commitMessage } from "../../services/loop/loop.implementations"
import type { LoopService } from "../../services/loop/loop.service"
import type { LoopReviews } from "../../services/loop/loop.ports"
import { type FakeLoopSessions, RECORDED_BRANCH, type RecordingWorktrees } from "./loop.fakes"
import { type Actual, BRANCH, HOST, LOOP, TITLE, actual } from "./loop.world"
import type { ModelStep } from "../../testing"

type LoopModel = typeof loopMachine
type Snapshot = SnapshotFrom<LoopModel>

/** The effects the loop must have had on opencode, as the model's steps asked for them. */
interface Effects {
  opened: string[]
  sent: { session: string; text: string }[]
  unsent: { session: string; text: string }[]
  stopped: string[]
  told: { session: string; text: string }[]
  /** The host's commits of clean sections, by message. */
  committed: string[]
  /** Each audit as its history keeps it: the section (-1: final), its outcome and the places of its findings. */
  audits: { section: number; outcome: "clean" | "dirty"; after: string[] }[]
}

/** What the SUT holds that the agreement looks at: its current process's service, opencode's sessions, what a restart left. */
interface LoopSides {
  service: LoopService
  reviews: LoopReviews
  sessions: FakeLoopSessions
  worktrees: RecordingWorktrees
  /** What the model's placeholders stand for now. */
  placeholders: Actual
  /** A restart found the loop finished: the new process does not hold it (its row is history). */
  forgotten: boolean
}

/**
 * The loop's world as the model's steps say it must be (its transition rows, and its effects on opencode: the sessions
 * opened, the briefs sent, the sessions stopped, the host told), and the check that the service, the database and
 * opencode all say what the model says.
 */
export class LoopExpectation {
  /** The steps' expected transition rows. */
  private readonly log: { event: string; to: string }[]
  readonly effects: Effects = { opened: [], sent: [], unsent: [], stopped: [], told: [], committed: [], audits: [] }
  private reader: LifecycleStore | undefined

  constructor(
    private readonly dir: string,
    /** The loop's worktree in the temp workspace. */
    private readonly worktree: LoopWorktree,
    first: Snapshot,
    /** The first transition row's event: a new loop's birth, or a restart from its record. */
    firstEvent = "xstate.init",
  ) {
    this.log = [{ event: firstEvent, to: snapshotStateText(first) }]
  }

  /** A model step: its transition row (a tool use asks, and logs nothing), and the effects it asked for. */
  step({ event, after, accepted, actions }: ModelStep<LoopModel>, placeholders: Actual): void {
    if (accepted && event.type !== "tool.use") this.log.push({ event: event.type, to: snapshotStateText(after) })
    if (accepted) this.actions(actions, placeholders)
  }

  /** The effects the model asked for in a step, as opencode must see them. */
  actions(actions: readonly { type: string; params?: unknown; info?: unknown }[], placeholders: Actual): void {
    for (const action of actions) {
      // A pass's effects see the loop's context with the pass's own over it (lifecycle.step.ts).
      const context = actual((action.info as { context: LoopPassView }).context, placeholders)
      switch (action.type) {
        case "openSession": {
          const { role } = action.params as { role: string }
          const restarted = context.restarts.length === 0 ? "" : ` (restart ${context.restarts.length})`
          this.effects.opened.push(`Loop ${LOOP} · pass ${context.iteration}${restarted} · ${role} · ${TITLE}`)
          break
        }
        case "sendBrief": {
          const { brief, phase } = action.params as { brief: LoopBrief; phase: ReturnType<typeof loopPhaseOf> & string }
          const text = loopBriefText(context, phase, brief)
          expectBrief(text, context, phase, brief)
          this.effects.sent.push({ session: context.session as string, text })
          break
        }
        case "commitSection": {
          const params = action.params as { final?: boolean; post?: boolean } | undefined
          this.effects.committed.push(commitMessage(context, params?.final === true, params?.post === true))
          break
        }
        case "stopSession":
          if (context.session !== null) this.effects.stopped.push(context.session)
          break
        case "recordAudit": {
          const audit = auditOutcomeOf(context, (action.info as { event: { type: string } }).event)
          if (audit !== null) this.effects.audits.push({ section: audit.section, outcome: audit.clean ? "clean" : "dirty", after: audit.found.map(placeOf) })
          break
        }
        case "announce": {
          const { outcome } = action.params as { outcome: LoopOutcome }
          const text = loopEndText(context, outcome, RECORDED_BRANCH)
          expect(text.split("\n")[0], "the host is told how the loop ended").toMatch(new RegExp(`^\\[forge:loop\\] Loop ${LOOP} ${outcome}: `))
          if (outcome !== "completed") expect(text, "the reason it ended").toContain(context.reason ?? "(no reason)")
          expect(text, "what git said of the branch").toContain(
            `The branch ${BRANCH} has 1 commit since ${this.worktree.base.slice(0, 12)}; the last is 5e1f00d`,
          )
          expect(text, "the worktree named from the workspace root").toContain(
            `Its worktree ${path.join(".opencode", "forge", "worktrees", LOOP)} has no uncommitted change.`,
          )
          this.effects.told.push({ session: HOST, text })
          break
        }
      }
    }
  }

  /** The brief the event would send (and that fails to go out). */
  unsent(before: Snapshot, event: LoopEvent, placeholders: Actual): void {
    const brief = step(loopMachine, before, event).requested.find((a) => a.type === "sendBrief")
    if (brief === undefined) throw new Error(`${event.type} sends no brief in ${snapshotStateText(before)}`)
    const context = actual((brief.info as { context: LoopPassView }).context, placeholders)
    const { brief: kind, phase } = brief.params as { brief: LoopBrief; phase: Parameters<typeof loopBriefText>[1] }
    this.effects.unsent.push({ session: context.session as string, text: loopBriefText(context, phase, kind) })
  }

  /** The service, the database and opencode all say what the model says. */
  async agreesWith(model: Snapshot, { service, reviews, sessions, worktrees, placeholders, forgotten }: LoopSides): Promise<void> {
    const live = model.hasTag("live")
    const context = actual(model.context, placeholders)

    // The service.
    const snapshot = service.lifecycle.snapshot(LOOP)
    if (forgotten) {
      expect(model.status, "only a finished loop is left behind by a restart").toBe("done")
      expect(snapshot, "a finished loop is not restored").toBeUndefined()
    } else {
      expect(snapshot?.value, "service state").toEqual(model.value)
      expect(snapshot?.status, "service status").toBe(model.status)
      expect(snapshot?.context, "service context").toEqual(context)
      const pass = snapshot === undefined ? undefined : loopPassOf(snapshot)
      const modelPass = loopPassOf(model)
      expect(pass?.value, "the pass's state").toEqual(modelPass?.value)
      expect(pass?.context, "the pass's context").toEqual(modelPass?.context)
      expect(await service.status(undefined), "loop_status").toMatch(statusLine(model))
    }
    for (const session of model.context.sessions) expect(service.loopOf(session)?.context.loopName, `the loop of ${session}`).toBe(live ? LOOP : undefined)
    // The sandbox of each session's shells: only the current coder's writes its worktree; a loop that ended confines none.
    const phase = loopPhaseOf(model.value)
    for (const session of [...model.context.sessions, "ses_of_no_loop"]) {
      // The coder's and the post-action's shells write the worktree; an audit's never.
      const writable = session === model.context.session && phase !== undefined && roleOfPhase(phase) !== "auditor"
      const confined = live && model.context.sessions.includes(session)
      expect(service.shellConfinement(session), `the sandbox of ${session}`).toEqual(
        confined ? { worktree: this.worktree.dir, writable, network: false } : null,
      )
    }
    expect(existsSync(this.worktree.dir), "the worktree stays").toBe(true)

    // opencode.
    expect(
      sessions.openings.map((o) => o.title),
      "sessions opened",
    ).toEqual(this.effects.opened)
    expect(sessions.sent, "briefs sent").toEqual(this.effects.sent)
    expect(sessions.unsent, "briefs that could not be sent").toEqual(this.effects.unsent)
    expect(sessions.stopped, "sessions stopped").toEqual(this.effects.stopped)
    expect(sessions.told, "what the host session was told").toEqual(this.effects.told)
    // git.
    expect(worktrees.commits, "the host's commits of clean sections").toEqual(this.effects.committed)
    // The database: the loop's open findings where review_read finds them, and every audit in its history.
    expect((await reviews.findings(LOOP)).map(placeOf), "the stored open findings").toEqual(model.context.findings.map(placeOf))
    const history = (await reviews.audits(LOOP, 100)).reverse()
    expect(
      history.map((a) => ({ section: a.section, outcome: a.outcome, after: a.after.map(placeOf) })),
      "the audit history",
    ).toEqual(this.effects.audits)
    if (loopPassOf(model)?.hasTag("opening") === true && !forgotten) expect(sessions.pending(), "a session being opened").toBeDefined()

    // The database, through a second connection as any other reader of the workspace would open it.
    this.reader ??= await openLifecycleStore(this.dir)
    const row = await this.reader.repository.getSnapshot("loop", LOOP)
    expect(row?.state, "database state").toBe(snapshotStateText(model))
    expect(row?.terminal, "database terminal flag").toBe(model.status === "done")
    expect(row?.sessionId, "database session").toBe(HOST)
    expect(row?.document, "database document").toBe(model.context.planPath)
    expect((row?.snapshot as { context?: unknown } | undefined)?.context, "database context").toEqual(JSON.parse(JSON.stringify(context)))
    const transitions = await this.reader.repository.listTransitions({ instanceId: LOOP })
    expect(
      transitions.map(({ event, to }) => ({ event, to })),
      "transition rows",
    ).toEqual(this.log)
  }

  /** A refused start left nothing: no loop in the service, no row, no transition, no worktree, nothing opened or told. */
  async agreesUnborn(
    model: Snapshot,
    { service, sessions, others }: { service: LoopService; sessions: FakeLoopSessions; others: readonly string[] },
  ): Promise<void> {
    expect(model.value, "the model stays refused").toBe("refused")
    expect(service.lifecycle.snapshot(LOOP), "no loop in the service").toBeUndefined()
    expect(
      [...service.lifecycle.instances()].map(([name]) => name),
      "the workspace's loops",
    ).toEqual(others)
    this.reader ??= await openLifecycleStore(this.dir)
    expect(await this.reader.repository.getSnapshot("loop", LOOP), "no database row").toBeUndefined()
    expect(await this.reader.repository.listTransitions({ instanceId: LOOP }), "no transition rows").toEqual([])
    const rows = await this.reader.repository.loadSnapshots({ machineId: "loop", includeTerminal: true })
    expect(
      rows.map((r) => r.instanceId),
      "the loop rows of the database",
    ).toEqual(others)
    expect(existsSync(this.worktree.dir), "no worktree folder").toBe(false)
    expect(
      sessions.openings.map((o) => o.title),
      "no session opened for it",
    ).toEqual(this.effects.opened)
    expect(sessions.sent, "no brief for it").toEqual(this.effects.sent)
    expect(sessions.told, "nothing told").toEqual([])
  }

  async close(): Promise<void> {
    await this.reader?.close()
  }
}

/** An event the machine refuses: the service refuses it with a GateRefusal, in the machine's words. */
export async function expectRefusal(attempt: Promise<unknown>, before: Snapshot, event: LoopEvent): Promise<void> {
  const error = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error, `${event.type} must be refused`).toBeInstanceOf(GateRefusal)
  expect((error as Error).message, "the machine's refusal").toBe(explainLoopRefusal(before, event))
}

/** A pass's tool called from a session that is no pass of a running loop: refused before the machine is asked. */
export async function expectNotAPass(attempt: Promise<unknown>, session: string, tool: string): Promise<void> {
  await expect(attempt).rejects.toThrow(
    `${tool}: this session (${session}) is not a pass of a running loop; ${tool} is for a loop's coder and auditor sessions.`,
  )
}

/** What every brief must say, read from the context it was sent in (independent of how the text is laid out). */
function expectBrief(text: string, context: LoopPassView, phase: Parameters<typeof loopBriefText>[1], brief: LoopBrief): void {
  const [first = ""] = text.split("\n")
  expect(first, "a brief's first line is tagged").toMatch(/^\[forge:loop\] /)
  expect(first, "the brief names its loop").toContain(`Loop ${LOOP}`)
  expect(text, "the brief names the worktree").toContain(context.worktree.dir)
  if (brief === "nudge") {
    expect(first, "a reminder says the turn ended without a handoff").toContain("without a handoff")
    expect(first).toContain(`reminder ${context.nudges} of 2`)
    return
  }
  const section = context.sections[context.sectionIndex]
  const final = phase === "final_auditing" || phase === "final_audit_fix" || phase === "post_action"
  expect(first, "the brief names its pass and role").toContain(`pass ${context.iteration} of at most ${context.maxIterations}, ${roleOfPhase(phase)}`)
  if (phase === "post_action") expect(text, "the post-action's only exit is loop_complete").toContain("end the loop with loop_complete")
  if (final) {
    expect(first, "a final pass covers the whole plan").toContain(
      phase === "post_action" ? "post-action: the plan is done and audited" : "final audit of the whole plan",
    )
    for (const s of context.sections) expect(text, "a final pass lists every section").toContain(`${s.title}\n\n${s.content}`)
  } else {
    expect(first, "the brief names its section").toContain(`section ${context.sectionIndex + 1} of ${context.sections.length}: ${section?.title}`)
    expect(text, "the brief carries the section's content").toContain(section?.content ?? "(none)")
  }
  const last = context.last
  // A dirty audit's findings go to the coder who fixes them; a clean one's warnings stay with its section.
  if (last?.role === "auditor" && roleOfPhase(phase) === "coder")
    for (const f of last.findings)
      if (hasBlockingFindings(last.findings)) expect(text, "a coder's brief carries the dirty audit's findings").toContain(f.description)
      else expect(text, "a clean audit's warnings stay with its section").not.toContain(f.description)
  if (last?.role === "coder" && roleOfPhase(phase) === "auditor")
    for (const c of last.changes) expect(text, "an auditor's brief carries the coder's changes").toContain(c.summary)
}

/** The loop_status line of the loop as the model has it. */
function statusLine(model: Snapshot): RegExp {
  const { sections, iteration, maxIterations } = model.context
  const done = sections.filter((s) => s.status === "done").length
  const phase = loopPhaseOf(model.value)
  const where =
    phase === undefined
      ? loopStatusOf(model.value)
      : `running, ${phase} \\(${roleOfPhase(phase)}\\)${loopPassOf(model)?.hasTag("opening") === true ? ", opening its session" : ""}`
  return new RegExp(`^${LOOP}: ${where} — ${done}/${sections.length} sections done, pass ${iteration}/${maxIterations}`)
}
