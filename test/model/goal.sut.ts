import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect } from "vitest"
import type { SnapshotFrom } from "xstate"
import type { DriverFacts } from "../../machines/driver.claim"
import type { GoalLimits, GoalTerms } from "../../machines/goal/goal.gates"
import type { GoalEvent, GoalInput, goalMachine } from "../../machines/goal/goal.machine"
import { goalStatusOf } from "../../machines/goal/goal.status"
import { stateToString } from "../../machines/state.text"
import { replaceContract } from "../../services/goal/goal.document"
import type { GoalLoop } from "../../services/goal/goal.loop"
import { takeOverDialog } from "../../services/goal/goal.restore"
import { NoGoalError } from "../../services/goal/goal.errors"
import type { GoalService } from "../../services/goal/goal.service"
import type { DriverClaims } from "../../services/lifecycle/driver.claim"
import { GateRefusal } from "../../services/lifecycle/gate.refusal"
import type { LifecycleHost } from "../../services/lifecycle/lifecycle.host"
import type { Confirm } from "../../services/lifecycle/lifecycle.ports"
import type { OpenedWorkspace } from "../../src/runtime"
import { ramTempDir } from "../temp.dir"
import { seedMigratedDatabase } from "./migrated.database"
import { GoalExpectation } from "./goal.agreement"
import { contractOf, expectArmRefusedBeside, writeModelGoal } from "./goal.birth"
import { type FakeCheckRunner, type FakeClaims, type FakeClock, type FakePrompter, type FakeSessionFacts, MODEL_DRIVER, type ManualTimers } from "./goal.fakes"
import { openGoalProcess } from "./goal.process"
import { GoalAuditDriver, isAskedOnly } from "./goal.sut.audit"
import { expectLateAnswerRefused } from "./goal.sut.dialogs"
import { type DialogAnswers, type OpenDialog, type Opening, outputOf, startDialogCall } from "./model.dialogs"
import type { ModelStep, ModelSut } from "../../testing"

type GoalModel = typeof goalMachine
type Snapshot = SnapshotFrom<GoalModel>

/** The one session of every model path: it writes the goal, arms it, and its idles drive the loop. */
export const SESSION = "ses_model"
/** What a continuation brief that cannot be sent fails with (the loop's `loop.failed` carries it). */
export const SEND_FAILURE = "ECONNRESET"
/** The agent another turn was answered by (a foreign speaker parks the loop). */
const OTHER_AGENT = "build"
/** Check runs get times of their own, far from the events' times, so every run has its own id in the Check Log. */
const CHECK_RUN_EPOCH = Date.parse("2026-12-24T00:00:00.000Z")

/** Lets every callback already due run (sqlite3 answers on its own thread; fs/promises on the pool). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/** How each dialog call answers, when the user allows it and when not. */
const ARM: DialogAnswers = { allowed: /^Goal armed: /, refused: /^The user did not arm / }
const RESUME: DialogAnswers = { allowed: /^Goal resumed: /, refused: /^The user did not resume / }
const DISCARD: DialogAnswers = { allowed: /^Goal discarded: /, refused: /^The user kept / }
const COMPLETE: DialogAnswers = { allowed: /^Goal completed: /, refused: /^The user did not confirm the completion / }

/**
 * The one factory of the goal SUT: the real GoalService and GoalLoop on the workspace's one LifecycleHost (its SQLite
 * database in a temp workspace), writing real goal documents through FsGoalFiles; fakes only for the clock, the
 * timers, the prompts, the session facts and the check runs.
 */
export async function startGoalSut(input: GoalInput): Promise<ModelSut<GoalModel>> {
  return GoalSut.start(input)
}

class GoalSut implements ModelSut<GoalModel> {
  /** What the service must hold now, and the check that the goal's world agrees with it. */
  private readonly expected: GoalExpectation
  private checkRuns = 0
  /** Open dialogs, newest last: an answer goes to the newest (an older one is left behind by a stop that won). */
  private readonly dialogs: OpenDialog[] = []
  /** The claim facts of the last decision the test stated (null: none yet, or the goal's own process decides). */
  private claimed: DriverFacts | null = null
  /** The birth gate refused the goal: nothing of it exists, and no event can be produced for it. */
  private unborn = false

  private constructor(
    private readonly dir: string,
    private readonly goalPath: string,
    private readonly clock: FakeClock,
    private readonly timers: ManualTimers,
    private readonly prompter: FakePrompter,
    private readonly facts: FakeSessionFacts,
    private readonly driver: FakeClaims,
    private readonly claims: DriverClaims,
    private readonly runner: FakeCheckRunner,
    private readonly host: LifecycleHost,
    private readonly rt: OpenedWorkspace,
    private readonly service: GoalService,
    private readonly loop: GoalLoop,
    private readonly input: GoalInput,
    private readonly audit: GoalAuditDriver,
  ) {
    this.expected = new GoalExpectation(dir, goalPath, SESSION, input)
  }

  static async start(input: GoalInput): Promise<GoalSut> {
    const dir = ramTempDir("forge-goal-model-")
    await seedMigratedDatabase(dir)
    const { clock, timers, prompter, facts, driver, claims, runner, host, rt, service, loop, audits, auditSessions } = await openGoalProcess(
      dir,
      input.createdAt,
    )
    // goal_write as the model's input asks it: queued, or refused at birth beside the session's live goal.
    const goalPath = await writeModelGoal(service, SESSION, input)
    const audit = new GoalAuditDriver(audits, auditSessions, clock, host, (event) => service.lifecycle.can(goalPath ?? input.goalPath, event))
    const sut = new GoalSut(dir, goalPath ?? input.goalPath, clock, timers, prompter, facts, driver, claims, runner, host, rt, service, loop, input, audit)
    sut.unborn = goalPath === undefined
    return sut
  }

  async apply({ event, before, accepted }: ModelStep<GoalModel>): Promise<void> {
    if (this.unborn) throw new Error(`${event.type}: a goal refused at birth takes no event (its world offers none)`)
    expect(stateToString(this.expected.snapshot.value), "the SUT's expectation follows the model").toBe(stateToString(before.value))
    // goal_complete on a driving goal that waits on no dialog runs every check and enters the run in the Check Log (a goal.checked step of
    // its own) before it asks the completion gate: the service is then one goal.checked ahead of the model. The
    // events offer goal.complete only where that check activity cannot change a later decision (no open turn, or
    // one with activity already), so model and service still agree on every guard.
    // A goal waiting on the user's answer (a completion or a discard asked) refuses before any check runs.
    if (event.type === "goal.complete" && this.expected.snapshot.hasTag("driving") && !this.expected.snapshot.hasTag("awaiting-user")) {
      this.expected.advance({ type: "goal.checked", entries: [] }, true)
    }
    expect(this.expected.snapshot.can(event), `the service's own steps leave the model's verdict on ${event.type}`).toBe(accepted)
    // goal.checked on a queued goal: goal_check only checks a live goal, so nothing produces it (asked, never sent).
    const produced = !(event.type === "goal.checked" && goalStatusOf(before.value) === "queued") && !isAskedOnly(event, before)
    this.expected.advance(event, accepted && produced)
    await this.produce(event, before, accepted)
    // The goal left its audit another way than the audit's own end: goal_complete's call finds it moved on.
    if (before.hasTag("auditing") && !this.expected.snapshot.hasTag("auditing") && !event.type.startsWith("goal.audit.")) await this.audit.left(before)
    await this.host.idle()
  }

  private async produce(event: GoalEvent, before: Snapshot, accepted: boolean): Promise<void> {
    const { service, loop } = this
    const finished = before.status === "done"
    const live = before.hasTag("live")
    const status = goalStatusOf(before.value)
    switch (event.type) {
      case "goal.arm": {
        this.facts.draftPlan = event.draftPlan
        if (live) {
          // goal_write arm=true while the session's goal is live: the new goal's birth gate refuses it, nothing written.
          await expectArmRefusedBeside(service, SESSION, before, this.input, this.dir)
          return expect(accepted).toBe(false)
        }
        // goal_resume with no live goal in the session arms the oldest queued goal (here: the one goal, or none).
        const attempt = this.opening(ARM, (confirm) => service.resume(SESSION, { by: "model", confirm }))
        if (finished) return this.refusedWith(attempt, NoGoalError)
        const opening = await attempt
        expect(opening.opened, "the arm dialog opened").toBe(accepted)
        if (!opening.opened) expect(outputOf(opening.result)).toMatch(/^Goal written but not armed: /)
        return
      }
      case "goal.resume": {
        this.clock.at = event.now
        this.facts.draftPlan = event.draftPlan
        if (!live && !finished) throw new Error("goal.resume is not producible for a queued goal: /goal resume arms it (goal.arm)")
        const attempt = this.opening(RESUME, (confirm) =>
          service.resume(
            SESSION,
            { by: "model", confirm },
            { addTurns: event.addTurns, addMinutes: event.addMinutes, addCost: event.addCost, addTokens: event.addTokens },
          ),
        )
        if (finished) return this.refusedWith(attempt, NoGoalError)
        return this.opensDialog(attempt, accepted)
      }
      case "dialog.allow":
      case "dialog.reject": {
        // An answer to a dialog that closed while it was open (a late user, here or in another process).
        if (before.hasTag("awaiting-user") && event.dialog !== before.context.dialog)
          return expectLateAnswerRefused(this.service, this.goalPath, this.dialogs, event, before)
        if (event.type === "dialog.allow") this.clock.at = event.now
        const dialog = this.dialogs.pop()
        if (dialog === undefined) return expect(accepted, `${event.type} needs an open dialog`).toBe(false)
        const allowed = event.type === "dialog.allow"
        dialog.answer(allowed)
        if (accepted) return expect(outputOf(await dialog.done), "the call's answer").toMatch(allowed ? dialog.answers.allowed : dialog.answers.refused)
        // The goal left the dialog's state another way meanwhile: the late answer is refused.
        else await expect(dialog.done).rejects.toBeInstanceOf(GateRefusal)
        return
      }
      case "goal.revise": {
        if (before.matches({ queued: "waiting" })) {
          // A queued goal's contract changes only by hand (goal_write revise=true revises the live goal): the
          // document is edited, and the service's follower takes the edit in as a new revision.
          this.handEdit(event.contract, event.limits)
          const [queued] = service.queue()
          expect(queued, "the queued goal").toBeDefined()
          const after = await service.followDocument(queued as Snapshot)
          return expect(after.context.revision, "the hand edit is taken in").toBe(accepted ? before.context.revision + 1 : before.context.revision)
        }
        const attempt = service.revise(SESSION, contractOf(event.contract, event.limits), {}, "goal_write")
        if (!live) return this.refusedWith(attempt, NoGoalError)
        return this.settles(attempt, accepted)
      }
      case "goal.pause": {
        const attempt = service.pause(SESSION, event.by, event.blocker)
        if (!live) return this.refusedWith(attempt, NoGoalError)
        if (!accepted) return this.refusedWith(attempt, GateRefusal)
        return expect(outputOf(await attempt), "goal_pause's answer").toMatch(event.blocker ? `(blocked: ${event.blocker})` : "(paused by request)")
      }
      case "goal.discard": {
        if (event.by === "user") {
          const attempt = service.discard(SESSION, { by: "user" }, event.reason)
          if (finished) return this.refusedWith(attempt, NoGoalError)
          return this.settles(attempt, accepted)
        }
        const attempt = this.opening(DISCARD, (confirm) => service.discard(SESSION, { by: "model", confirm }, event.reason))
        if (finished) return this.refusedWith(attempt, NoGoalError)
        return this.opensDialog(attempt, accepted)
      }
      case "goal.checked": {
        this.runChecks(before, new Set(event.entries.filter((e) => !e.pass).map((e) => e.item)))
        const attempt = service.check(SESSION)
        if (status === "queued") {
          // Asked, never sent: the machine would take a check run on a queued goal, but goal_check finds no live goal.
          expect(service.lifecycle.can(this.goalPath, event), "the machine's answer").toBe(accepted)
          return this.refusedWith(attempt, NoGoalError)
        }
        if (finished) return this.refusedWith(attempt, NoGoalError)
        return this.settles(attempt, accepted)
      }
      case "goal.complete": {
        this.runChecks(before, new Set(event.run.results.filter((r) => !r.pass).map((r) => r.item)))
        const attempt = this.opening(COMPLETE, (confirm) => service.complete(SESSION, event.attestations, confirm))
        if (!live) return this.refusedWith(attempt, NoGoalError)
        if (status === "paused") {
          // Refused before any check runs: a paused goal does not drive.
          await this.refusedWith(attempt, GateRefusal)
          return expect(this.runner.runs, "no check ran").toBe(0)
        }
        // A goal with an audit goes to its auditor: the call waits until the audit ends.
        if (accepted && this.expected.snapshot.hasTag("auditing")) return this.audit.started(attempt)
        return this.opensDialog(attempt, accepted)
      }
      case "goal.document.changed": {
        // Someone (the user, the model's edit or sed) rewrites the status line; the service's follower hands it to the
        // machine (a goal tool or /goal looks at the document first).
        const file = path.join(this.dir, this.goalPath)
        writeFileSync(file, readFileSync(file, "utf8").replace(/^status: .*$/m, `status: ${event.status}`))
        const goal = status === "queued" ? service.queue()[0] : service.liveFor(SESSION)
        expect(goal, "the goal the follower looks at").toBeDefined()
        await service.followDocument(goal as Snapshot)
        return
      }
      case "goal.audit.opened":
      case "goal.audit.tool":
      case "goal.review.write":
      case "goal.review.delete":
      case "goal.audit.done":
      case "goal.audit.failed":
        return this.audit.produce(event, before, this.expected.snapshot, accepted)
      case "goal.activity":
        return loop.activity(SESSION, event.kind)
      case "job.wake":
        // The job supervisor hands the wake to the goal: carried by the next brief, or (refused) sent by the job.
        expect(await loop.carryWake(SESSION, event.text), "the goal carries the wake").toBe(accepted)
        return
      case "session.idle":
        this.clock.at = event.now
        return loop.sessionIdle(SESSION)
      case "session.busy":
        return loop.sessionBusy(SESSION)
      case "loop.due":
        // The debounce timer fires at `now`, and the loop asks the session's facts; a timer that fires early asks
        // nothing and waits again for the deadline (agreesWith finds it armed at dueAt).
        this.clock.at = event.now
        this.facts.agent = event.speaker === "forge" ? "forge" : OTHER_AGENT
        this.facts.draftPlan = event.draftPlan
        this.facts.cost = event.spend.cost
        this.facts.tokens = event.spend.tokens
        // The deciding process, the goal's claim as it reads it, and whether the claim's holder lives.
        this.driver.me = event.driver.me
        this.driver.alive = event.driver.holderAlive
        this.driver.set(this.goalPath, event.driver.claim)
        this.claimed = event.driver
        if (before.context.dueAt !== null && event.now < before.context.dueAt) return this.fireEarly()
        return this.fireTimers()
      case "goal.restored": {
        // Another process's driver watch (or its restore) finds the goal, and reads its claim as the event says.
        this.clock.at = event.now
        this.driver.me = event.driver.me
        this.driver.alive = event.driver.holderAlive
        this.driver.set(this.goalPath, event.driver.claim)
        this.claimed = null
        if (!before.hasTag("awaiting-user")) return this.loop.resumeAll()
        expect(await takeOverDialog(service.lifecycle, this.goalPath, this.claims), "the dialog closed").toBe(accepted)
        if (!accepted) return
        // The process that showed the dialog is gone: an answer it would still give changes nothing.
        const dialog = this.dialogs.pop()
        dialog?.answer(false)
        return expect(dialog?.done).rejects.toThrow(/is not waiting on a user dialog/)
      }
      case "loop.failed":
        // The timer fires on facts that send the brief, and the send fails: the loop reports the failure.
        this.clock.at = event.now
        this.facts.agent = "forge"
        this.facts.draftPlan = false
        this.facts.cost = before.context.spend.cost
        this.facts.tokens = before.context.spend.tokens
        this.driver.me = MODEL_DRIVER
        this.driver.alive = true
        this.driver.set(this.goalPath, null)
        this.claimed = null
        this.prompter.failWith = SEND_FAILURE
        try {
          return await this.fireTimers()
        } finally {
          this.prompter.failWith = undefined
        }
    }
  }

  /** The check runner answers for the goal's current contract, failing the items given; the run has its own time. */
  private runChecks(before: Snapshot, failing: Set<number>): void {
    this.runner.checks = before.context.contract.checks
    this.runner.failing = failing
    this.runner.runs = 0
    this.checkRuns += 1
    this.clock.at = CHECK_RUN_EPOCH + this.checkRuns * 1_000
  }

  /** Someone edits the goal document's contract (its budgets in the frontmatter stay as they are). */
  private handEdit(terms: GoalTerms, limits: GoalLimits): void {
    const file = path.join(this.dir, this.goalPath)
    writeFileSync(file, replaceContract(readFileSync(file, "utf8"), this.goalPath, contractOf(terms, limits)))
  }

  /** Fires the armed timers before their deadline: the loop must ask no fact and decide nothing. */
  private async fireEarly(): Promise<void> {
    const asked = this.facts.decisions
    this.timers.fireAll()
    for (let i = 0; i < 3; i++) {
      await settle()
      await this.host.idle()
    }
    expect(this.facts.decisions, "facts asked by a timer that fired early").toBe(asked)
  }

  /** Fires the armed timers and waits until the loop has decided on each (its facts asked, its steps committed). */
  private async fireTimers(): Promise<void> {
    const asked = this.facts.decisions
    const fired = this.timers.fireAll()
    if (fired === 0) return
    await this.facts.untilDecisions(asked + fired, 10_000, "the loop never asked for the session's facts within 10 s of its timer firing")
    // A failed send is followed by its loop.failed step: settle twice after the queue drained.
    for (let i = 0; i < 3; i++) {
      await settle()
      await this.host.idle()
    }
  }

  /** Starts a call that may ask the user; resolves once its dialog is open (held until answered) or the call ended. */
  private opening(answers: DialogAnswers, run: (confirm: Confirm) => Promise<unknown>): Promise<Opening> {
    return startDialogCall(answers, run, (dialog) => this.dialogs.push(dialog))
  }

  private async opensDialog(attempt: Promise<Opening>, accepted: boolean): Promise<void> {
    if (!accepted) return this.refusedWith(attempt, GateRefusal)
    expect((await attempt).opened, "the dialog opened").toBe(true)
  }

  private async settles(attempt: Promise<unknown>, accepted: boolean): Promise<void> {
    if (accepted) await attempt
    else await this.refusedWith(attempt, GateRefusal)
  }

  private async refusedWith(attempt: Promise<unknown>, kind: typeof GateRefusal | typeof NoGoalError): Promise<void> {
    await expect(attempt).rejects.toBeInstanceOf(kind)
  }

  /** The service's answers, its snapshot, the database row and log, the document, the prompts and the timers agree. */
  async agreesWith(model: Snapshot): Promise<void> {
    await this.host.idle()
    const { service, prompter, timers, claimed, dialogs } = this
    if (this.unborn) return this.expected.agreesUnborn(model, service)
    await this.expected.agreesWith(model, { service, prompter, timers, claimed, dialogs })
  }

  async stop(): Promise<void> {
    await this.audit.abandon()
    // Dialogs still open are answered no (their calls end; what they dispatch no longer matters).
    for (const dialog of this.dialogs.splice(0).reverse()) {
      dialog.answer(false)
      await dialog.done.catch(() => undefined)
    }
    this.loop.dispose()
    this.timers.clear()
    await this.expected.close()
    await this.rt.close()
  }
}
