import { SqliteDriverClaimStore } from "../../adapters/storage/driver.claim.repository"
import { DriverClaims } from "../../services/lifecycle/driver.claim"
import { existsSync, mkdirSync } from "node:fs"
import path from "node:path"
import { expect } from "vitest"
import { type SnapshotFrom, initialTransition, transition } from "xstate"
import { type LifecycleStore, openLifecycleStore } from "../../adapters/storage/lifecycle.store"
import { hasBlockingFindings, type LoopHandoff, roleOfPhase } from "../../machines/loop.gates"
import {
  type LoopBrief,
  type LoopContext,
  type LoopEvent,
  type LoopInput,
  type LoopOutcome,
  type LoopWorktree,
  loopMachine,
  loopPhaseOf,
} from "../../machines/loop.machine"
import { explainLoopBirthRefusal, explainLoopRefusal } from "../../machines/loop.refusals"
import { loopStatusOf } from "../../machines/loop.status"
import { stateToString } from "../../machines/state.text"
import { GateRefusal } from "../../services/lifecycle/gate.refusal"
import { loopBriefText, loopEndText } from "../../services/loop/loop.brief"
import type { HandoffFields } from "../../services/loop/loop.handoff"
import { defineLoopLifecycle } from "../../services/loop/loop.lifecycle"
import type { LoopPlan, LoopPlans, LoopSessions, LoopWorktrees } from "../../services/loop/loop.ports"
import { restoreLive } from "../../services/lifecycle/lifecycle.restore.live"
import { LoopService } from "../../services/loop/loop.service"
import { type ComposedRuntime, composeWorkspace } from "../../src/runtime"
import { memoryLogger } from "../integration/plan/plan.helpers"
import { ramTempDir } from "../temp.dir"
import { seedMigratedDatabase } from "./migrated.database"
import { FakeClock } from "./goal.fakes"
import type { ModelStep, ModelSut } from "./model.template"

type LoopModel = typeof loopMachine
type Snapshot = SnapshotFrom<LoopModel>

/** The session that starts the loop: it is told how the loop ended. */
export const HOST = "ses_host"
/** A session that is no pass of any loop. */
export const STRANGER = "ses_stranger"
/** The id opencode gives the session opened for pass `n`. */
export const passSession = (n: number): string => `ses_pass_${n}`
/** The loop's name: the slug of its title. */
export const LOOP = "ship-the-parser"
export const TITLE = "Ship the parser"
/** The first pass of the loop an `askedFrom` config runs inside (it asks for the new loop). */
export const OUTER_SESSION = "ses_outer_pass_1"
export const OUTER_LOOP = "outer-loop"
export const PLAN_PATH = ".opencode/plan/2026-11-30-ship-the-parser.md"
/** The approved plan the fake LoopPlans serves: two phases, each behind its section marker. */
export const PLAN_BODY = `# Ship the parser

## Goal
Parse and print arithmetic expressions.

<!-- forge-section -->
## Phase 1: Parser
Write a recursive-descent parser for \`+ - * /\` and parentheses in src/parser.ts.

### Notes
Keep the lexer as it is.

<!-- forge-section -->
## Phase 2: Printer
Print a parsed expression back with minimal parentheses in src/printer.ts.

## Tasks
- [ ] 1. Write the parser
- [ ] 2. Write the printer

## Acceptance Criteria
- npm test passes
`
/** The branch the loop's worktree is on; its folder and base commit are the temp workspace's own. */
export const BRANCH = `forge/loop/${LOOP}`
/** The worktree a model input carries: `dir` and `base` stand for the temp workspace's (the SUT swaps them in). */
export const MODEL_WORKTREE: LoopWorktree = { dir: "(worktree folder)", branch: BRANCH, base: "(base commit)" }

/** What a send to an unreachable session throws. */
export const SEND_DOWN = "promptAsync failed: the session is gone"
/** loop.fail as the service makes it when the first brief of a pass cannot be sent (produced in `opening`). */
export const BRIEF_FAILED = `loop.session.opened failed: ${SEND_DOWN}`
/** loop.fail as the service makes it when a reminder cannot be sent (produced in `working`, no handoff recorded). */
export const NUDGE_FAILED = `loop.idle failed: ${SEND_DOWN}`
/** loop.fail where the service has no road to it: dispatched to the lifecycle itself. */
export const DIRECT_FAIL = "the harness ended the loop"

/** The driver a model's `loop.session.opened` names: the SUT's process that opened the session (one id per process). */
export const MODEL_DRIVER = "(the process that opened the session)"
/** The id of the `n`th opencode process the SUT runs on the workspace. */
const processId = (n: number): string => `model-process-${n}`
/** A process a model's `loop.restored` names when it starts beside the live process that drives the loop. */
export const NEIGHBOUR_DRIVER = "(a process started beside the live driver)"
const NEIGHBOUR_ID = "model-process-neighbour"

/** Where a model context's placeholders stand for the SUT's own: its worktree, and its process that opened the session. */
interface Actual {
  worktree: LoopWorktree
  driver: string | null
}

/** The stored context a model context stands for. */
const actual = (context: LoopContext, { worktree, driver }: Actual): LoopContext => ({ ...context, worktree, driver: context.driver === null ? null : driver })

/** A deferred session opening, as opencode would answer it: the SUT settles it when the model's path says so. */
interface Opening {
  title: string
  state: "pending" | "opened" | "failed" | "orphaned"
  resolve(session: string): void
  reject(error: Error): void
}

/** opencode's sessions as the loop sees them: openings the test settles, and a record of every send, stop and tell. */
class FakeLoopSessions implements LoopSessions {
  readonly openings: Opening[] = []
  readonly sent: { session: string; text: string }[] = []
  /** The sends that threw (the session could not be reached). */
  readonly unsent: { session: string; text: string }[] = []
  readonly stopped: string[] = []
  readonly told: { session: string; text: string }[] = []
  /** Set: every send throws it. */
  failSends: string | undefined

  open(title: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const opening: Opening = {
        title,
        state: "pending",
        resolve: (session) => {
          opening.state = "opened"
          resolve(session)
        },
        reject: (error) => {
          opening.state = "failed"
          reject(error)
        },
      }
      this.openings.push(opening)
    })
  }

  /** The opening this process waits for, if any. */
  pending(): Opening | undefined {
    return this.openings.filter((o) => o.state === "pending").at(-1)
  }

  /** A process died: what it was opening is never answered to it. */
  orphanAll(): void {
    for (const opening of this.openings) if (opening.state === "pending") opening.state = "orphaned"
  }

  async send(session: string, text: string): Promise<void> {
    if (this.failSends !== undefined) {
      this.unsent.push({ session, text })
      throw new Error(this.failSends)
    }
    this.sent.push({ session, text })
  }

  async stop(session: string): Promise<void> {
    this.stopped.push(session)
  }

  async tell(session: string, text: string): Promise<void> {
    this.told.push({ session, text })
  }

  /** After a restart a pass's session still runs its turn: the restore takes no idle as given. */
  async isIdle(_session: string): Promise<boolean> {
    return false
  }
}

/** The effects the loop must have had on opencode, as the model's steps asked for them. */
interface Effects {
  opened: string[]
  sent: { session: string; text: string }[]
  unsent: { session: string; text: string }[]
  stopped: string[]
  told: { session: string; text: string }[]
}

/** One opencode process on the workspace: the parts a restart replaces (the folder, its database and git stay). */
interface LoopProcess {
  rt: ComposedRuntime
  service: LoopService
  /** Its driver id. */
  id: string
  /** Its driver claims (renewed by the test where the process's driver watch would). */
  claims: DriverClaims
}

/** The handoff the tool's arguments make: loop_handoff's fields that `handoffFrom` turns into `handoff`. */
export function fieldsOf(handoff: LoopHandoff): HandoffFields {
  const notes = handoff.notes === null ? {} : { notes: handoff.notes }
  if (handoff.role === "coder") return { changes: handoff.changes, deviations: handoff.deviations, verification: handoff.verification, ...notes }
  return {
    findings: handoff.findings.map(({ severity, file, line, description }) => ({
      severity,
      description,
      ...(file === null ? {} : { file }),
      ...(line === null ? {} : { line }),
    })),
    ...(handoff.summary === null ? {} : { summary: handoff.summary }),
    ...notes,
  }
}

/**
 * The one factory of the loop SUT: the real LoopService on the workspace's one LifecycleHost (SQLite in a temp
 * workspace); fakes only for the clock, the session's live plan, opencode's sessions and git's worktrees (recorded).
 */
export async function startLoopSut(input: LoopInput): Promise<LoopSut> {
  return LoopSut.start(input)
}

export class LoopSut implements ModelSut<LoopModel> {
  /** The steps' expected transition rows. */
  private readonly log: { event: string; to: string }[]
  private readonly expected: Effects = { opened: [], sent: [], unsent: [], stopped: [], told: [] }
  /** A restart found the loop finished: the new process does not hold it (its row is history). */
  private forgotten = false
  /** The birth gate refused the start: no loop, no row, no worktree, whatever comes after. */
  private unborn = false
  /** Loops of the workspace besides this one (the loop an `askedFrom` config runs inside). */
  private readonly others: string[] = []
  private reader: LifecycleStore | undefined
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
    private process: LoopProcess,
    private readonly worktree: LoopWorktree,
    first: Snapshot,
  ) {
    this.log = [{ event: "xstate.init", to: stateToString(first.value) }]
  }

  static async start(input: LoopInput): Promise<LoopSut> {
    const dir = ramTempDir("forge-loop-model-")
    await seedMigratedDatabase(dir)
    const worktrees = new RecordingWorktrees(dir)
    const worktree: LoopWorktree = { ...worktrees.placeFor(LOOP), base: BASE_COMMIT }
    expect(worktree.branch, "the loop's branch").toBe(input.worktree.branch)
    const clock = new FakeClock(input.startedAt)
    const sessions = new FakeLoopSessions()
    const plan: LoopPlan | undefined =
      input.planPath === null ? undefined : { planPath: input.planPath, status: input.planStatus ?? "unreadable", title: TITLE, body: PLAN_BODY }
    const plans: LoopPlans = { liveFor: async () => plan }
    const process = await openProcess(dir, clock, sessions, plans, worktrees, processId(1))
    const sut = new LoopSut(dir, clock, sessions, plans, worktrees, process, worktree, initialTransition(loopMachine, input)[0])
    await sut.begin(input)
    return sut
  }

  /** loop_start from the input's host session: refused by the birth gate, or the loop started with its worktree. */
  private async begin(input: LoopInput): Promise<void> {
    const { service } = this.process
    if (input.askedFrom !== null) await this.startOuterLoop(input)
    // A plan given inline has no path: the no-section config gives an empty one.
    const request = { title: input.title, maxIterations: input.maxIterations, ...(input.planPath === null ? { plan: "" } : {}) }
    const born = initialTransition(loopMachine, input)[0]
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
    this.expectActions(initialTransition(loopMachine, { ...input, worktree: this.worktree })[1])
    await this.settle()
  }

  /** The loop an `askedFrom` config asks from: started by the host, its first pass opened as OUTER_SESSION. */
  private async startOuterLoop(input: LoopInput): Promise<void> {
    const { service } = this.process
    await service.start(HOST, { title: "Outer loop", maxIterations: input.maxIterations })
    const opening = this.sessions.pending()
    expect(opening?.title, "the outer loop opens its first pass").toBe(`Loop ${OUTER_LOOP} · pass 1 · coder · Outer loop`)
    opening?.resolve(OUTER_SESSION)
    await this.settle((s) => s.hasTag("working"), OUTER_LOOP)
    expect(service.loopOf(OUTER_SESSION)?.context.loopName, "the asking session runs in the outer loop").toBe(input.askedFrom)
    expect(this.sessions.sent.map((s) => s.session)).toEqual([OUTER_SESSION])
    this.others.push(OUTER_LOOP)
    this.expected.opened.push(...this.sessions.openings.map((o) => o.title))
    this.expected.sent.push(...this.sessions.sent)
  }

  async apply({ event, before, after, accepted, actions }: ModelStep<LoopModel>): Promise<void> {
    if (accepted && event.type !== "tool.use") this.log.push({ event: event.type, to: stateToString(after.value) })
    if (accepted) this.expectActions(actions)
    await this.produce(event, before, accepted)
    await this.settle((s) => stateToString(s.value) === stateToString(after.value))
  }

  /** The effects the model asked for in a step, as opencode must see them. */
  private expectActions(actions: readonly { type: string; params?: unknown; info?: unknown }[]): void {
    for (const action of actions) {
      const context = actual((action.info as { context: LoopContext }).context, this.placeholders())
      switch (action.type) {
        case "openSession": {
          const { role } = action.params as { role: string }
          this.expected.opened.push(`Loop ${LOOP} · pass ${context.iteration} · ${role} · ${TITLE}`)
          break
        }
        case "sendBrief": {
          const { brief, phase } = action.params as { brief: LoopBrief; phase: ReturnType<typeof loopPhaseOf> & string }
          const text = loopBriefText(context, phase, brief)
          expectBrief(text, context, phase, brief)
          this.expected.sent.push({ session: context.session as string, text })
          break
        }
        case "stopSession":
          if (context.session !== null) this.expected.stopped.push(context.session)
          break
        case "announce": {
          const { outcome } = action.params as { outcome: LoopOutcome }
          const text = loopEndText(context, outcome)
          expect(text.split("\n")[0], "the host is told how the loop ended").toMatch(new RegExp(`^\\[forge:loop\\] Loop ${LOOP} ${outcome}: `))
          if (outcome !== "completed") expect(text, "the reason it ended").toContain(context.reason ?? "(no reason)")
          expect(text).toContain(`The work is on branch ${BRANCH}, in the worktree ${this.worktree.dir}.`)
          this.expected.told.push({ session: HOST, text })
          break
        }
      }
    }
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
        const attempt = service.handoff(event.session, fieldsOf(event.handoff))
        if (finished || event.session === STRANGER) return expectNotAPass(attempt, event.session, "loop_handoff")
        if (!accepted) return expectRefusal(attempt, before, event)
        const replaced = before.context.pending !== null
        return void expect(await attempt, "the handoff's answer").toBe(
          `Handoff recorded${replaced ? " (it replaces the one recorded earlier this turn)" : ""} — end your turn now; make no further changes.`,
        )
      }
      case "loop.idle":
        return service.sessionIdle(event.session)
      case "loop.adjust": {
        this.clock.at = event.now
        const attempt = service.adjust(event.session, event.pending, event.rationale)
        if (!accepted) return expectRefusal(attempt, before, event)
        return void expect(await attempt, "the adjust's answer").toBe(
          `Sections amended (amendment 1). Pending after section ${before.context.sectionIndex + 1}: none.`,
        )
      }
      case "loop.cancel": {
        const why = event.reason.replace(/^cancelled: /, "")
        expect(`cancelled: ${why}`, "loop_cancel's reason is recorded behind `cancelled: `").toBe(event.reason)
        if (finished) {
          // The only loop is over: nothing to cancel unnamed, and named it refuses in the machine's words.
          await expect(service.cancel(event.session, undefined, why)).rejects.toThrow(/^no loop is running in this workspace\.$/)
          return expectRefusal(service.cancel(event.session, LOOP, why), before, event)
        }
        // A loop's own pass asks: the machine refuses it.
        if (!accepted) return expectRefusal(service.cancel(event.session, undefined, why), before, event)
        return void expect(await service.cancel(event.session, undefined, why), "the cancel's answer").toBe(
          `Loop ${LOOP} cancelled. Its work stays on branch ${BRANCH} (${this.worktree.dir}).`,
        )
      }
      case "loop.fail":
        return this.fail(event, before, accepted)
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
      const session = passSession(before.context.iteration)
      this.expectUnsent(before, { type: "loop.session.opened", session, driver: MODEL_DRIVER })
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
      this.expectUnsent(before, { type: "loop.idle", session })
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

  /** The brief the event would send (and that fails to go out). */
  private expectUnsent(before: Snapshot, event: LoopEvent): void {
    const [, actions] = transition(loopMachine, before, event)
    const brief = actions.find((a) => a.type === "sendBrief")
    if (brief === undefined) throw new Error(`${event.type} sends no brief in ${stateToString(before.value)}`)
    const context = actual((brief.info as unknown as { context: LoopContext }).context, this.placeholders())
    const { brief: kind, phase } = brief.params as { brief: LoopBrief; phase: Parameters<typeof loopBriefText>[1] }
    this.expected.unsent.push({ session: context.session as string, text: loopBriefText(context, phase, kind) })
  }

  /**
   * A real restart: the process dies (what it was opening is never answered to it), a new one composes the workspace
   * on the same folder and database, defines the loop lifecycle again, restores the running loops and resumes them.
   */
  private async restart(before: Snapshot): Promise<void> {
    await this.process.rt.close()
    this.sessions.orphanAll()
    this.generation += 1
    this.process = await openProcess(this.dir, this.clock, this.sessions, this.plans, this.worktrees, processId(this.generation))
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
    const neighbour = await openProcess(this.dir, this.clock, this.sessions, this.plans, this.worktrees, NEIGHBOUR_ID, (holder) => alive.has(holder))
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
    const neighbour = await openProcess(this.dir, this.clock, this.sessions, this.plans, this.worktrees, NEIGHBOUR_ID, (holder) => holder === driver)
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
    if (this.unborn) return this.agreesUnborn(model)
    const live = model.hasTag("live")
    const context = actual(model.context, this.placeholders())

    // The service.
    const snapshot = service.lifecycle.snapshot(LOOP)
    if (this.forgotten) {
      expect(model.status, "only a finished loop is left behind by a restart").toBe("done")
      expect(snapshot, "a finished loop is not restored").toBeUndefined()
    } else {
      expect(snapshot?.value, "service state").toEqual(model.value)
      expect(snapshot?.status, "service status").toBe(model.status)
      expect(snapshot?.context, "service context").toEqual(context)
      expect(await service.status(undefined), "loop_status").toMatch(statusLine(model))
    }
    for (const session of model.context.sessions) expect(service.loopOf(session)?.context.loopName, `the loop of ${session}`).toBe(live ? LOOP : undefined)
    expect(existsSync(this.worktree.dir), "the worktree stays").toBe(true)

    // opencode.
    expect(
      this.sessions.openings.map((o) => o.title),
      "sessions opened",
    ).toEqual(this.expected.opened)
    expect(this.sessions.sent, "briefs sent").toEqual(this.expected.sent)
    expect(this.sessions.unsent, "briefs that could not be sent").toEqual(this.expected.unsent)
    expect(this.sessions.stopped, "sessions stopped").toEqual(this.expected.stopped)
    expect(this.sessions.told, "what the host session was told").toEqual(this.expected.told)
    if (model.hasTag("opening") && !this.forgotten) expect(this.sessions.pending(), "a session being opened").toBeDefined()

    // The database, through a second connection as any other reader of the workspace would open it.
    this.reader ??= await openLifecycleStore(this.dir)
    const row = await this.reader.repository.getSnapshot("loop", LOOP)
    expect(row?.state, "database state").toBe(stateToString(model.value))
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
  private async agreesUnborn(model: Snapshot): Promise<void> {
    const { service } = this.process
    expect(model.value, "the model stays refused").toBe("refused")
    expect(service.lifecycle.snapshot(LOOP), "no loop in the service").toBeUndefined()
    expect(
      [...service.lifecycle.instances()].map(([name]) => name),
      "the workspace's loops",
    ).toEqual(this.others)
    this.reader ??= await openLifecycleStore(this.dir)
    expect(await this.reader.repository.getSnapshot("loop", LOOP), "no database row").toBeUndefined()
    expect(await this.reader.repository.listTransitions({ instanceId: LOOP }), "no transition rows").toEqual([])
    const rows = await this.reader.repository.loadSnapshots({ machineId: "loop", includeTerminal: true })
    expect(
      rows.map((r) => r.instanceId),
      "the loop rows of the database",
    ).toEqual(this.others)
    expect(existsSync(this.worktree.dir), "no worktree folder").toBe(false)
    expect(
      this.sessions.openings.map((o) => o.title),
      "no session opened for it",
    ).toEqual(this.expected.opened)
    expect(this.sessions.sent, "no brief for it").toEqual(this.expected.sent)
    expect(this.sessions.told, "nothing told").toEqual([])
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
    await this.reader?.close()
    await this.process.rt.close()
  }
}

/**
 * A process on the workspace: composed on the folder (its database), the loop lifecycle defined on its one host.
 */
async function openProcess(
  dir: string,
  clock: FakeClock,
  sessions: LoopSessions,
  plans: LoopPlans,
  worktrees: LoopWorktrees,
  id: string,
  /** Which other processes still run (by default none: an earlier process of the SUT was closed before this one). */
  isAlive: (holder: string) => boolean = () => false,
): Promise<LoopProcess> {
  // As src/loops.ts composes the harness on the workspace's one host, with the edges swapped for the fakes.
  const log = memoryLogger()
  const workspace = composeWorkspace({ workspace: dir, clock, log })
  // The driver claims in the workspace database every process of the SUT shares, held as this process's id.
  const opened = workspace.open()
  const claims = new DriverClaims({
    store: async () => new SqliteDriverClaimStore((await opened).connection),
    identity: { me: id, isAlive: (holder) => holder === id || isAlive(holder) },
    clock,
    log,
  })
  let service: LoopService | undefined
  const lifecycle = defineLoopLifecycle(workspace.host, { worktrees, sessions, report: (loopName, event) => service?.report(loopName, event), driver: id, log })
  service = new LoopService({ lifecycle, worktrees, sessions, plans, claims, clock, log })
  const rt = await opened
  return { rt, service, id, claims }
}

/** What every brief must say, read from the context it was sent in (independent of how the text is laid out). */
function expectBrief(text: string, context: LoopContext, phase: Parameters<typeof loopBriefText>[1], brief: LoopBrief): void {
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
  const final = phase === "final_auditing" || phase === "final_audit_fix"
  expect(first, "the brief names its pass and role").toContain(`pass ${context.iteration} of at most ${context.maxIterations}, ${roleOfPhase(phase)}`)
  if (final) {
    expect(first, "a final pass covers the whole plan").toContain("final audit of the whole plan")
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
    phase === undefined ? loopStatusOf(model.value) : `running, ${phase} \\(${roleOfPhase(phase)}\\)${model.hasTag("opening") ? ", opening its session" : ""}`
  return new RegExp(`^${LOOP}: ${where} — ${done}/${sections.length} sections done, pass ${iteration}/${maxIterations}`)
}

async function expectRefusal(attempt: Promise<unknown>, before: Snapshot, event: LoopEvent): Promise<void> {
  const error = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error, `${event.type} must be refused`).toBeInstanceOf(GateRefusal)
  expect((error as Error).message, "the machine's refusal").toBe(explainLoopRefusal(before, event))
}

async function expectNotAPass(attempt: Promise<unknown>, session: string, tool: string): Promise<void> {
  await expect(attempt).rejects.toThrow(
    `${tool}: this session (${session}) is not a pass of a running loop; ${tool} is for a loop's coder and auditor sessions.`,
  )
}

/** The commit a workspace's HEAD stands for in the model paths. */
const BASE_COMMIT = "0123456789abcdef0123456789abcdef01234567"

/**
 * The workspace's git worktrees, recorded: each one asked for is made as a folder at its place. Real git is
 * GitLoopWorktrees', tested on its own (test/integration/workspace/loop.worktrees.test.ts); here it would cost every
 * path a handful of git processes and change nothing the machine decides.
 */
class RecordingWorktrees implements LoopWorktrees {
  readonly created: LoopWorktree[] = []
  constructor(private readonly workspace: string) {}
  async head(): Promise<string> {
    return BASE_COMMIT
  }
  placeFor(loopName: string): { dir: string; branch: string } {
    return { dir: path.join(this.workspace, ".opencode", "forge", "worktrees", loopName), branch: `forge/loop/${loopName}` }
  }
  async isTaken(loopName: string): Promise<boolean> {
    return existsSync(this.placeFor(loopName).dir)
  }
  async create(worktree: LoopWorktree): Promise<void> {
    mkdirSync(worktree.dir, { recursive: true })
    this.created.push(worktree)
  }
}
