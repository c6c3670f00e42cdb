import { existsSync, readFileSync, readdirSync } from "node:fs"
import path from "node:path"
import { expect } from "vitest"
import { type SnapshotFrom, initialTransition, transition } from "xstate"
import { type LifecycleStore, openLifecycleStore } from "../../adapters/storage/lifecycle.store"
import type { DriverFacts } from "../../machines/driver.claim"
import { type GoalContext, type GoalEvent, type GoalInput, goalMachine } from "../../machines/goal/goal.machine"
import { goalStatusOf } from "../../machines/goal/goal.status"
import { stateToString } from "../../machines/state.text"
import { termsOf } from "../../services/goal/goal.contract"
import { auditLine } from "../../services/goal/goal.audit.text"
import { parseGoalDocument } from "../../services/goal/goal.document"
import { GOAL_DIR } from "../../services/goal/goal.paths"
import type { GoalService } from "../../services/goal/goal.service"
import type { FakePrompter, ManualTimers } from "./goal.fakes"
import type { OpenDialog } from "./model.dialogs"

type GoalModel = typeof goalMachine
type Snapshot = SnapshotFrom<GoalModel>

/** The context a guard can read, with what only the service's own completion runs add left out (see the SUT's `apply`). */
function decisive(context: GoalContext): unknown {
  const copy = structuredClone(context)
  copy.activity.checks = 0
  if (copy.lastTurn !== null) copy.lastTurn.activity.checks = 0
  return copy
}

/** What the SUT holds that the agreement looks at besides the expectation: the service, the loop's edges, the dialogs. */
interface GoalSides {
  service: GoalService
  prompter: FakePrompter
  timers: ManualTimers
  /** The claim facts of the last decision the test stated (null: none yet, or the goal's own process decides). */
  claimed: DriverFacts | null
  /** Open dialogs, newest last. */
  dialogs: readonly OpenDialog[]
}

/**
 * The goal's world as the model's steps say it must be, and the check that the service's answers, its snapshot, the
 * database row and log, the document, the prompts and the timers agree with it.
 */
export class GoalExpectation {
  /**
   * What the service must hold now: the model, plus what the service's own completion run adds before it asks the
   * completion gate (a `goal.checked` the model's `goal.complete` does not carry). The SUT's `apply` keeps it one with
   * the model in everything a guard reads.
   */
  private expected: Snapshot
  private readonly expectedLog: { event: string; to: string }[]
  private checkLines = 0
  private briefs = 0
  private wrapUps = 0
  private failedSends = 0
  private reader: LifecycleStore | undefined

  constructor(
    private readonly dir: string,
    private readonly goalPath: string,
    /** The one session of every model path. */
    private readonly session: string,
    input: GoalInput,
  ) {
    this.expected = initialTransition(goalMachine, input)[0]
    this.expectedLog = [{ event: "xstate.init", to: stateToString(this.expected.value) }]
  }

  /** What the service must hold now. */
  get snapshot(): Snapshot {
    return this.expected
  }

  /** Steps the expectation; a step the service takes is recorded with its effects. */
  advance(event: GoalEvent, taken: boolean): void {
    const [next, actions] = transition(goalMachine, this.expected, event)
    if (!taken) return
    const before = this.expected
    this.expected = next
    this.expectedLog.push({ event: event.type, to: stateToString(next.value) })
    for (const action of actions) {
      if (action.type === "sendBrief") this.briefs += 1
      if (action.type === "sendWrapUp") this.wrapUps += 1
      // Held wakes go out on their own when no brief follows; under a failing prompter (loop.failed) that send fails.
      if (action.type === "releaseWakes" && (action.info.context as Snapshot["context"]).wakes.length > 0) {
        if (event.type === "loop.failed") this.failedSends += 1
        else this.wrapUps += 1
      }
      // The service runs every check of the contract the goal holds; each is one Check Log line.
      if (action.type === "writeDocument" && (action.params as { change?: string } | undefined)?.change === "checked")
        this.checkLines += before.context.contract.checks.length
    }
    if (event.type === "loop.failed") this.failedSends += 1
  }

  /** The service's answers, its snapshot, the database row and log, the document, the prompts and the timers agree. */
  async agreesWith(model: Snapshot, { service, prompter, timers, claimed, dialogs }: GoalSides): Promise<void> {
    const expected = this.expected
    const { context } = expected
    expect(stateToString(expected.value), "the SUT's expectation follows the model").toBe(stateToString(model.value))
    expect(decisive(context), "the SUT's expectation agrees with the model's context").toEqual(decisive(model.context))
    const status = goalStatusOf(expected.value)
    const live = expected.hasTag("live")

    // The service.
    const snapshot = service.lifecycle.snapshot(this.goalPath)
    expect(snapshot?.value, "service state").toEqual(expected.value)
    expect(snapshot?.status, "service status").toBe(expected.status)
    expect(snapshot?.context, "service context").toEqual(context)
    expect(service.liveFor(this.session)?.context.goalPath, "the session's live goal").toBe(live ? this.goalPath : undefined)
    expect(
      service.queue().map((s) => s.context.goalPath),
      "the queue",
    ).toEqual(status === "queued" ? [this.goalPath] : [])

    // The database, through a second connection as any other reader of the workspace would open it.
    this.reader ??= await openLifecycleStore(this.dir)
    const row = await this.reader.repository.getSnapshot(goalMachine.id, this.goalPath)
    expect(row?.state, "database state").toBe(stateToString(expected.value))
    expect(row?.terminal, "database terminal flag").toBe(expected.status === "done")
    expect(row?.sessionId ?? null, "database session").toBe(context.sessionId)
    const stored = (row?.snapshot as { context?: GoalContext } | undefined)?.context
    expect({ revision: stored?.revision, turnsUsed: stored?.turnsUsed }, "database revision and turns").toEqual({
      revision: context.revision,
      turnsUsed: context.turnsUsed,
    })
    expect(stored, "database context").toEqual(JSON.parse(JSON.stringify(context)))
    const log = await this.reader.repository.listTransitions({ instanceId: this.goalPath })
    expect(
      log.map(({ event, to }) => ({ event, to })),
      "transition rows",
    ).toEqual(this.expectedLog)

    // The goal document. Soft: a document that says something else fails the test, and the path goes on (the
    // document decides nothing the service does next).
    const doc = parseGoalDocument(readFileSync(path.join(this.dir, this.goalPath), "utf8"), this.goalPath)
    const paused = status === "paused"
    expect.soft(doc.frontmatter, "document frontmatter").toMatchObject({
      // A status a live goal holds pending the user's dialog is what the document says; a finished goal's says where it ended.
      status: expected.status === "done" ? status : (context.pendingDocument ?? status),
      revision: context.revision,
      max_turns: context.limits.maxTurns,
      max_minutes: context.limits.maxMinutes,
      turns_used: context.turnsUsed,
    })
    expect
      .soft(
        {
          session: doc.frontmatter.session,
          max_cost: doc.frontmatter.max_cost,
          max_tokens: doc.frontmatter.max_tokens,
          armed_at: doc.frontmatter.armed_at,
          stop_reason: doc.frontmatter.stop_reason,
          blocker: doc.frontmatter.blocker,
          audit: doc.frontmatter.audit,
        },
        "document frontmatter (optional keys)",
      )
      .toEqual({
        session: context.sessionId ?? undefined,
        max_cost: context.limits.maxCost ?? undefined,
        max_tokens: context.limits.maxTokens ?? undefined,
        armed_at: context.armedAt === null ? undefined : new Date(context.armedAt).toISOString(),
        stop_reason: paused ? (context.stopReason ?? undefined) : undefined,
        blocker: paused ? (context.blocker ?? undefined) : undefined,
        audit: context.audit === null ? undefined : auditLine(context.audit),
      })
    expect.soft(termsOf(doc.contract), "document contract").toEqual(context.contract)
    expect.soft(doc.checkLog.length, "Check Log lines").toBe(this.checkLines)
    expect
      .soft(
        doc.ledger.map(({ turn, activity }) => ({ turn, activity })),
        "Turn Ledger",
      )
      .toHaveLength(context.lastTurn?.turn ?? 0)
    expect.soft(doc.ledger.at(-1)?.turn, "last Turn Ledger entry").toBe(context.lastTurn?.turn)
    expect.soft(doc.ledger.at(-1)?.activity, "last Turn Ledger activity").toEqual(context.lastTurn?.activity)

    // The loop's prompts and its one timer at the snapshot's deadline.
    expect(prompter.briefs(), "continuation briefs sent").toBe(this.briefs)
    expect(prompter.sent.length - prompter.briefs(), "wrap-ups sent").toBe(this.wrapUps)
    expect(prompter.failed.length, "failed sends").toBe(this.failedSends)
    // While another live process holds the claim, the timer looks again when the claim would lapse.
    const claim = claimed?.claim ?? null
    const heldElsewhere = claimed !== null && claim !== null && claim.holder !== claimed.me && claimed.holderAlive
    const decisionAt = context.dueAt === null ? null : heldElsewhere && claim !== null ? Math.max(context.dueAt, claim.until) : context.dueAt
    expect(timers.pending(), "the loop's timer").toEqual(expected.hasTag("due") && decisionAt !== null ? [decisionAt] : [])
    if (expected.hasTag("awaiting-user")) expect(dialogs.length, "an open dialog").toBeGreaterThan(0)
  }

  /**
   * A goal refused at birth left nothing: no goal in the service or its queue, no document, no database row or log.
   * The session's live goal its birth facts named is still the session's, as it was.
   */
  async agreesUnborn(model: Snapshot, service: GoalService): Promise<void> {
    expect(model.value, "the model stays refused").toBe("refused")
    expect(service.lifecycle.snapshot(this.goalPath), "no goal in the service").toBeUndefined()
    expect(service.queue(), "nothing queued").toEqual([])
    const held = model.context.birth?.liveGoal ?? null
    expect(service.liveFor(this.session)?.context.goalPath ?? null, "the session's live goal").toBe(held?.path ?? null)
    expect(existsSync(path.join(this.dir, this.goalPath)), "no document of the refused goal").toBe(false)
    const dir = path.join(this.dir, GOAL_DIR)
    expect(existsSync(dir) ? readdirSync(dir) : [], "the goal documents").toEqual(held === null ? [] : [path.basename(held.path)])
    this.reader ??= await openLifecycleStore(this.dir)
    expect(await this.reader.repository.getSnapshot(goalMachine.id, this.goalPath), "no database row").toBeUndefined()
    expect(await this.reader.repository.listTransitions({ instanceId: this.goalPath }), "no transition rows").toEqual([])
  }

  async close(): Promise<void> {
    await this.reader?.close()
  }
}
