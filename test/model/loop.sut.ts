import { existsSync } from "node:fs"
import { expect } from "vitest"
import type { SnapshotFrom } from "xstate"
import type { LoopEvent, LoopInput, LoopResumeInput, LoopStartInput, LoopWorktree } from "../../machines/loop/loop.machine"
import { loopMachine, loopPassOf, loopPhaseOf } from "../../machines/loop/loop.machine"
import { explainLoopBirthRefusal, explainLoopRefusal } from "../../machines/loop/loop.refusals"
import { snapshotStateText } from "../../machines/state.text"
import { GateRefusal } from "../../services/lifecycle/gate.refusal"
import { initialStep } from "../../services/lifecycle/lifecycle.step"
import { restoreLive } from "../../services/lifecycle/lifecycle.restore.live"
import { LoopReviewService } from "../../services/loop/loop.review"
import { applyAdjust, applyCancel, applyRestart, applyReview, applySilence, completeFieldsOf, fieldsOf } from "./loop.sut.tools"
import { agreesUnrestarted, restartFromRecord } from "./loop.sut.resume"
import type { LoopPlan, LoopPlans, LoopSandboxes } from "../../services/loop/loop.ports"
import { ramTempDir } from "../temp.dir"
import { seedMigratedDatabase } from "./migrated.database"
import { FakeClock } from "./goal.fakes"
import { LoopExpectation, expectNotAPass, expectRefusal } from "./loop.agreement"
import { BASE_COMMIT, FakeLoopSessions, RecordingWorktrees } from "./loop.fakes"
import { type LoopProcess, NEIGHBOUR_ID, openLoopProcess, processId } from "./loop.process"
import {
  type Actual,
  BRANCH,
  BRIEF_FAILED,
  HOST,
  LOOP,
  MODEL_DRIVER,
  MODEL_WORKTREE,
  NEIGHBOUR_DRIVER,
  NUDGE_FAILED,
  OUTER_LOOP,
  OUTER_SESSION,
  PLAN_BODY,
  SEND_DOWN,
  STRANGER,
  TITLE,
  nextPassSession,
} from "./loop.world"
import type { ModelStep, ModelSut } from "../../testing"

type LoopModel = typeof loopMachine
type Snapshot = SnapshotFrom<LoopModel>

/**
 * The one factory of the loop SUT: the real LoopService on the workspace's one LifecycleHost (SQLite in a temp
 * workspace); fakes only for the clock, the session's live plan, opencode's sessions and git's worktrees (recorded).
 */
export async function startLoopSut(input: LoopInput): Promise<LoopSut> {
  return LoopSut.start(input)
}

export class LoopSut implements ModelSut<LoopModel> {
  /** The transition rows and the effects on opencode the model's steps must leave, and the check that they do. */
  private readonly expected: LoopExpectation
  /** A restart found the loop finished: the new process does not hold it (its row is history). */
  private forgotten = false
  /** The birth gate refused the start: no loop, no row, no worktree, whatever comes after. */
  private unborn = false
  /** The birth gate refused a restart: the loop's record stays as it ended. */
  private unrestarted: LoopResumeInput | undefined
  /** Loops of the workspace besides this one (the loop an `askedFrom` config runs inside). */
  private readonly others: string[] = []
  /** The process that drives the loop (its `driver`): the one that started it, opened its session or took it over. */
  private driver: string | null = processId(1)
  /** How many processes ran on the workspace. */
  private generation = 1

  private constructor(
    private readonly dir: string,
    private readonly clock: FakeClock,
    private readonly sessions: FakeLoopSessions,
    private readonly plans: LoopPlans,
    private readonly worktrees: RecordingWorktrees,
    private readonly sandboxes: LoopSandboxes,
    private process: LoopProcess,
    private readonly worktree: LoopWorktree,
    first: Snapshot,
    firstEvent: string,
  ) {
    this.expected = new LoopExpectation(dir, worktree, first, firstEvent)
  }

  static async start(input: LoopInput): Promise<LoopSut> {
    const dir = ramTempDir("forge-loop-model-")
    await seedMigratedDatabase(dir)
    const worktrees = new RecordingWorktrees(dir)
    const worktree: LoopWorktree = { ...worktrees.placeFor(LOOP), base: BASE_COMMIT }
    // A restarted loop's facts are its record's.
    const facts = "resume" in input ? input.resume.context : input
    expect(worktree.branch, "the loop's branch").toBe(facts.worktree.branch)
    const clock = new FakeClock("resume" in input ? input.at : input.startedAt)
    const sessions = new FakeLoopSessions()
    const plan: LoopPlan | undefined =
      facts.planPath === null ? undefined : { planPath: facts.planPath, status: facts.planStatus ?? "unreadable", title: TITLE, body: PLAN_BODY }
    const plans: LoopPlans = { liveFor: async () => plan }
    // The sandbox as the config's birth fact has it: on and able to start, or unable to start here.
    const problem = "resume" in input ? input.sandboxProblem : input.sandbox.problem
    const sandboxes: LoopSandboxes = { mode: facts.sandbox.mode, network: facts.sandbox.network, problem: async () => problem }
    const process = await openLoopProcess(dir, clock, sessions, plans, worktrees, sandboxes, processId(1))
    const first = initialStep(loopMachine, input).snapshot as Snapshot
    const sut = new LoopSut(dir, clock, sessions, plans, worktrees, sandboxes, process, worktree, first, "resume" in input ? "loop.restart" : "xstate.init")
    if ("resume" in input) {
      sut.unrestarted = await restartFromRecord(sut.process, input, sut.worktrees, sut.placeholders(), sut.expected)
      await sut.settle()
    } else await sut.begin(input)
    return sut
  }

  /** loop_start from the input's host session: refused by the birth gate, or the loop started with its worktree. */
  private async begin(input: LoopStartInput): Promise<void> {
    const { service } = this.process
    if (input.askedFrom !== null) await this.startOuterLoop(input)
    // A plan given inline has no path: the no-section config gives an empty one.
    const request = { title: input.title, maxIterations: input.maxIterations, ...(input.planPath === null ? { plan: "" } : {}) }
    const born = initialStep(loopMachine, input).snapshot as Snapshot
    const starting = service.start(input.hostSession, request)
    if (born.matches("refused")) {
      const error = await starting.then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error, "the birth gate refuses the start").toBeInstanceOf(GateRefusal)
      expect((error as Error).message, "the machine's refusal").toBe(explainLoopBirthRefusal(born))
      this.unborn = true
      await this.settle()
      // Nothing is made for a refused start: no worktree.
      expect(
        this.worktrees.created.filter((w) => w.dir === this.worktree.dir),
        "no worktree made for it",
      ).toEqual([])
      expect(existsSync(this.worktree.dir), "no worktree folder").toBe(false)
      return
    }
    const answer = await starting
    expect(answer.split("\n")[0], "the start's answer").toBe(`Loop ${LOOP} started: 2 sections, at most ${input.maxIterations} passes.`)
    expect(answer).toContain(`Worktree ${this.worktree.dir} on branch ${BRANCH} (from ${this.worktree.base.slice(0, 12)}).`)
    expect(answer).toContain("\n1. Parser\n2. Printer\n")
    // The worktree the loop asked for: at its place, on its branch, from the workspace's HEAD (GitLoopWorktrees makes it
    // with real git; its own integration test shows that).
    expect(this.worktrees.created, "the worktree made").toEqual([this.worktree])
    this.expected.actions(initialStep(loopMachine, { ...input, worktree: this.worktree }).requested, this.placeholders())
    await this.settle()
  }

  /** The loop an `askedFrom` config asks from: started by the host, its first pass opened as OUTER_SESSION. */
  private async startOuterLoop(input: LoopStartInput): Promise<void> {
    const { service } = this.process
    await service.start(HOST, { title: "Outer loop", maxIterations: input.maxIterations })
    const opening = this.sessions.pending()
    expect(opening?.title, "the outer loop opens its first pass").toBe(`Loop ${OUTER_LOOP} · pass 1 · coder · Outer loop`)
    opening?.resolve(OUTER_SESSION)
    await this.settle((s) => loopPassOf(s)?.hasTag("working") === true, OUTER_LOOP)
    expect(service.loopOf(OUTER_SESSION)?.context.loopName, "the asking session runs in the outer loop").toBe(input.askedFrom)
    expect(this.sessions.sent.map((s) => s.session)).toEqual([OUTER_SESSION])
    this.others.push(OUTER_LOOP)
    this.expected.effects.opened.push(...this.sessions.openings.map((o) => o.title))
    this.expected.effects.sent.push(...this.sessions.sent)
  }

  async apply(step: ModelStep<LoopModel>): Promise<void> {
    const { event, before, after, accepted } = step
    this.expected.step(step, this.placeholders())
    await this.produce(event, before, accepted)
    await this.settle((s) => snapshotStateText(s) === snapshotStateText(after))
  }

  private async produce(event: LoopEvent, before: Snapshot, accepted: boolean): Promise<void> {
    const { service } = this.process
    const finished = before.status === "done"
    switch (event.type) {
      case "loop.session.opened":
      case "loop.session.failed": {
        const opening = this.sessions.pending()
        if (accepted) expect(opening, "the loop waits for the session it is opening").toBeDefined()
        // A late answer to an opening the loop no longer waits for (it was cancelled meanwhile), or a stray report.
        if (opening === undefined) return service.report(LOOP, event.type === "loop.session.opened" ? { ...event, driver: this.process.id } : event)
        if (event.type === "loop.session.failed") return opening.reject(new Error(event.error))
        expect(event.driver, "the model's opened session names the process that opened it").toBe(MODEL_DRIVER)
        if (accepted) this.driver = this.process.id
        return opening.resolve(event.session)
      }
      case "loop.handoff": {
        // The post-action's record is loop_complete's; every other record is loop_handoff's.
        const { handoff } = event
        const complete = handoff.role === "post_action"
        // The pass's subagents still at work, as opencode would report them when the handoff is made.
        if (event.busy !== undefined) this.sessions.busy.set(event.session, event.busy)
        const attempt = complete ? service.complete(event.session, completeFieldsOf(handoff)) : service.handoff(event.session, fieldsOf(handoff))
        await attempt.catch(() => undefined)
        this.sessions.busy.delete(event.session)
        if (finished || event.session === STRANGER) return expectNotAPass(attempt, event.session, complete ? "loop_complete" : "loop_handoff")
        if (!accepted) return expectRefusal(attempt, before, event)
        if (complete)
          return void expect(await attempt, "loop_complete's answer").toMatch(
            /^Completion recorded \((completed|completed_with_issues|failed)\) — end your turn now/,
          )
        const replaced = (loopPassOf(before)?.context.pending ?? null) !== null
        return void expect(await attempt, "the handoff's answer").toBe(
          `Handoff recorded${replaced ? " (it replaces the one recorded earlier this turn)" : ""} — end your turn now; make no further changes.`,
        )
      }
      case "loop.idle":
        return service.sessionIdle(event.session)
      case "loop.session.error":
        return service.sessionError(event.session, event.error)
      case "loop.session.silent":
        return applySilence(service, this.clock, event, before)
      case "loop.review.write":
      case "loop.review.delete":
        return applyReview(new LoopReviewService(service, this.process.reviews, this.clock), event, before, accepted)
      case "loop.adjust":
        return applyAdjust(service, this.clock, event, before, accepted)
      case "loop.cancel":
        return applyCancel(service, event, before, accepted, this.worktree.dir)
      case "loop.fail":
        return this.fail(event, before, accepted)
      case "loop.restart":
        await applyRestart(service, this.clock, event, before, accepted)
        if (accepted) this.driver = this.process.id
        return
      case "loop.restored":
        if (event.driver.me === NEIGHBOUR_DRIVER) return this.restoreBeside(accepted)
        await this.restart(before)
        // The new process took the running loop over: it drives the pass from now on.
        if (accepted) this.driver = this.process.id
        return
      case "tool.use": {
        // Asked by the pass's session on each of its tool calls; a finished loop bans nothing.
        const session = before.context.session ?? before.context.sessions.at(-1) ?? STRANGER
        // The model's paths name its placeholder worktree; the pass's tools name the real one.
        const real = (text: string) => text.replaceAll(MODEL_WORKTREE.dir, this.worktree.dir)
        const refusal = await service.toolRefusal(session, event.tool, event.paths.map(real))
        if (finished) return void expect(refusal, "a finished loop holds no gate").toBeNull()
        return void expect(refusal, `${event.tool} in the ${loopPhaseOf(before.value)} phase`).toBe(accepted ? null : real(explainLoopRefusal(before, event)))
      }
    }
  }

  /** loop.fail by its road: a first brief or a reminder that cannot be sent, or straight to the lifecycle. */
  private async fail(event: Extract<LoopEvent, { type: "loop.fail" }>, before: Snapshot, accepted: boolean): Promise<void> {
    const { service } = this.process
    if (event.reason === BRIEF_FAILED) {
      // The session opens, and its first brief cannot be sent: the step that would record it fails.
      const session = nextPassSession(before.context)
      this.expected.unsent(before, { type: "loop.session.opened", session, driver: MODEL_DRIVER }, this.placeholders())
      const opening = this.sessions.pending()
      expect(opening, "the loop waits for the session it is opening").toBeDefined()
      this.sessions.failSends = SEND_DOWN
      opening?.resolve(session)
      await this.settle((s) => s.status === "done")
      this.sessions.failSends = undefined
      return
    }
    if (event.reason === NUDGE_FAILED) {
      // The pass's turn ends without a handoff and the reminder cannot be sent.
      const session = before.context.session as string
      this.expected.unsent(before, { type: "loop.idle", session }, this.placeholders())
      this.sessions.failSends = SEND_DOWN
      await service.sessionIdle(session)
      await this.settle((s) => s.status === "done")
      this.sessions.failSends = undefined
      return
    }
    const attempt = service.lifecycle.dispatch(LOOP, event)
    if (!accepted) return expectRefusal(attempt, before, event)
    await attempt
  }

  /**
   * A real restart: the process dies (what it was opening is never answered to it), a new one composes the workspace
   * on the same folder and database, defines the loop lifecycle again, restores the running loops and resumes them.
   */
  private async restart(before: Snapshot): Promise<void> {
    await this.process.rt.close()
    this.sessions.orphanAll()
    this.generation += 1
    this.process = await openLoopProcess(this.dir, this.clock, this.sessions, this.plans, this.worktrees, this.sandboxes, processId(this.generation))
    const report = await restoreLive(this.process.service.lifecycle, this.process.rt.repository)
    expect(report.problems, "restore problems").toEqual([])
    const running = before.status === "active" ? [LOOP] : []
    expect(report.restored.sort(), "the loops restored").toEqual([...this.others, ...running].sort())
    await this.process.service.resumeAll()
    if (before.status === "done") this.forgotten = true
  }

  /**
   * The process that drives the loop exits while a second one, started beside it, runs on: what the second one sees
   * of the loop (its driver, the sessions opened so far) after each step — its start, a look while the driver lives,
   * the driver's exit, its next look, and one more. The second process is the SUT's process from then on.
   */
  async exitDriverBesideNeighbour(): Promise<{ step: string; driver: string | null | undefined; openings: number }[]> {
    const first = this.process
    await first.claims.renew()
    const alive = new Set([first.id])
    const neighbour = await openLoopProcess(this.dir, this.clock, this.sessions, this.plans, this.worktrees, this.sandboxes, NEIGHBOUR_ID, (holder) =>
      alive.has(holder),
    )
    const seen: { step: string; driver: string | null | undefined; openings: number }[] = []
    const look = (step: string) =>
      seen.push({ step, driver: neighbour.service.lifecycle.snapshot(LOOP)?.context.driver, openings: this.sessions.openings.length })
    await restoreLive(neighbour.service.lifecycle, neighbour.rt.repository)
    await neighbour.service.resumeAll()
    look("started beside the driver")
    await neighbour.service.takeOverLeftLoops()
    look("looked while the driver runs")
    await first.rt.close()
    this.sessions.orphanAll()
    alive.delete(first.id)
    look("the driver exited")
    await neighbour.service.takeOverLeftLoops()
    look("looked after the driver exited")
    await neighbour.service.takeOverLeftLoops()
    look("looked once more")
    this.process = neighbour
    this.driver = neighbour.id
    return seen
  }

  /**
   * A second process starts on the workspace while the one that drives the loop still runs: it restores the loop and
   * asks to drive it, and the machine's driver gate leaves the loop to the live driver (nothing opened, sent or
   * recorded). The second process then closes.
   */
  private async restoreBeside(accepted: boolean): Promise<void> {
    expect(accepted, "a process beside the live driver never takes the loop over").toBe(false)
    const driver = this.process.id
    // The live driver renews its claim (its driver watch does, every few seconds), whatever time the model's steps took.
    await this.process.claims.renew()
    const neighbour = await openLoopProcess(
      this.dir,
      this.clock,
      this.sessions,
      this.plans,
      this.worktrees,
      this.sandboxes,
      NEIGHBOUR_ID,
      (holder) => holder === driver,
    )
    try {
      const report = await restoreLive(neighbour.service.lifecycle, neighbour.rt.repository)
      expect(report.problems, "restore problems").toEqual([])
      await neighbour.service.resumeAll()
      expect(neighbour.service.lifecycle.snapshot(LOOP)?.context.driver, "the live process still drives the loop").toBe(driver)
    } finally {
      await neighbour.rt.close()
    }
  }

  /**
   * Lets the loop's own steps land (a session's report, a failed step's loop.fail): until `until` holds for the
   * service's loop, or a bounded number of rounds.
   */
  private async settle(until?: (s: Snapshot) => boolean, loopName = LOOP): Promise<void> {
    for (let round = 0; round < 50; round++) {
      await new Promise((resolve) => setImmediate(resolve))
      await this.process.rt.host.idle()
      const snapshot = this.process.service.lifecycle.snapshot(loopName)
      if (round >= 2 && (until === undefined || snapshot === undefined || until(snapshot))) return
    }
  }

  /** The service, the database and opencode all say what the model says. */
  async agreesWith(model: Snapshot): Promise<void> {
    const { service } = this.process
    await this.process.rt.host.idle()
    if (this.unborn) return this.expected.agreesUnborn(model, { service, sessions: this.sessions, others: this.others })
    if (this.unrestarted !== undefined)
      return agreesUnrestarted(model, this.unrestarted, { service, sessions: this.sessions, worktrees: this.worktrees, dir: this.dir })
    return this.expected.agreesWith(model, {
      service,
      reviews: this.process.reviews,
      sessions: this.sessions,
      worktrees: this.worktrees,
      placeholders: this.placeholders(),
      forgotten: this.forgotten,
    })
  }

  /** What the model's placeholders stand for now. */
  private placeholders(): Actual {
    return { worktree: this.worktree, driver: this.driver }
  }

  /** The loop as the service holds it now (undefined once a restart left it behind or it was never born). */
  current(): Snapshot | undefined {
    return this.process.service.lifecycle.snapshot(LOOP)
  }

  /** Every brief sent so far, oldest first. */
  briefs(): readonly { session: string; text: string }[] {
    return this.sessions.sent
  }

  async stop(): Promise<void> {
    await this.expected.close()
    await this.process.rt.close()
  }
}
