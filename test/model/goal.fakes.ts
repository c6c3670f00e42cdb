import type { GoalSpend } from "../../machines/goal/goal.gates"
import type { Timers } from "../../services/job/job.ports"
import type { GoalCheck } from "../../services/goal/goal.contract"
import type { CheckOutcome, GoalAuditSessions, GoalAuditWorkspace, GoalCheckRunner, GoalPrompter, SessionFacts } from "../../services/goal/goal.ports"
import type { DriverClaim } from "../../machines/driver.claim"
import type { ClaimDecision, ClaimRow, DriverClaimStore, ProcessIdentity } from "../../services/lifecycle/driver.claim.ports"
import type { Clock } from "../../services/lifecycle/lifecycle.ports"

// The goal harness's edges for the model test: a clock the test sets, timers the test fires, a prompter that records
// (or fails) its sends, session facts the test states per event, and a check runner whose verdicts the test chooses.
// Everything between them (service, loop, lifecycle host, SQLite, the goal documents) is the real thing.

/** Time is a number the test sets; it moves only when an event carries a time (or a check run needs its own). */
export class FakeClock implements Clock {
  constructor(public at: number) {}
  now = (): number => this.at
}

interface PendingTimer {
  due: number
  fn: () => void
  cancelled: boolean
}

/** Timers that never fire by themselves: the test fires them (as a late, or an early, host timer would). */
export class ManualTimers implements Timers {
  private timers: PendingTimer[] = []
  constructor(private readonly clock: FakeClock) {}

  setTimeout(fn: () => void, ms: number) {
    const timer: PendingTimer = { due: this.clock.now() + ms, fn, cancelled: false }
    this.timers.push(timer)
    return {
      cancel: () => {
        timer.cancelled = true
      },
    }
  }

  /** The due times of the timers still armed. */
  pending(): number[] {
    this.timers = this.timers.filter((t) => !t.cancelled)
    return this.timers.map((t) => t.due)
  }

  /** Fires every armed timer now, whatever its due time; returns how many fired. */
  fireAll(): number {
    const armed = this.timers.filter((t) => !t.cancelled)
    this.timers = []
    for (const timer of armed) {
      timer.cancelled = true
      timer.fn()
    }
    return armed.length
  }

  clear(): void {
    for (const timer of this.timers) timer.cancelled = true
    this.timers = []
  }
}

/** The loop's prompts, as sent into the session: the briefs and wrap-ups it sent, and the sends that failed. */
export class FakePrompter implements GoalPrompter {
  readonly sent: { sessionId: string; text: string }[] = []
  readonly failed: { sessionId: string; text: string }[] = []
  /** Set: every send fails with this message (the session cannot be reached). */
  failWith: string | undefined

  async send(sessionId: string, text: string): Promise<void> {
    if (this.failWith !== undefined) {
      this.failed.push({ sessionId, text })
      throw new Error(this.failWith)
    }
    this.sent.push({ sessionId, text })
  }

  /** How many sends were continuation briefs (the rest are wrap-ups). */
  briefs(): number {
    return this.sent.filter((s) => s.text.includes("[forge:goal-continue]")).length
  }
}

/** What opencode would say about the session when asked: set by the test before the event that asks. */
export class FakeSessionFacts implements SessionFacts {
  agent: string | undefined = "forge"
  cost = 0
  tokens = 0
  draftPlan = false
  /** How many times the loop gathered the facts of a decision (its speaker question). */
  decisions = 0
  private readonly waiters = new Set<() => void>()

  async speaker(_sessionId: string): Promise<string | undefined> {
    this.decisions += 1
    for (const wake of this.waiters) wake()
    return this.agent
  }

  /**
   * Resolves once the loop has gathered the facts of `count` decisions in all; rejects with `message` when that has
   * not happened within `timeoutMs` (the loop waits on the database's own thread, which a loaded machine slows down).
   */
  untilDecisions(count: number, timeoutMs: number, message: string): Promise<void> {
    if (this.decisions >= count) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const wake = () => {
        if (this.decisions < count) return
        this.waiters.delete(wake)
        clearTimeout(timer)
        resolve()
      }
      const timer = setTimeout(() => {
        this.waiters.delete(wake)
        reject(new Error(message))
      }, timeoutMs)
      this.waiters.add(wake)
    })
  }

  async spend(_sessionId: string, _since: number): Promise<GoalSpend> {
    return { cost: this.cost, tokens: this.tokens }
  }

  async hasDraftPlan(_sessionId: string): Promise<boolean> {
    return this.draftPlan
  }

  async isIdle(_sessionId: string): Promise<boolean> {
    return true
  }
}

/**
 * The driver claim as the test states it before each decision: which process decides (`me`), the claim row it reads,
 * and whether another holder lives. What a decision writes stays until the test states the next one.
 */
export class FakeClaims implements DriverClaimStore, ProcessIdentity {
  me = MODEL_DRIVER
  alive = true
  private readonly rows = new Map<string, DriverClaim>()

  isAlive(holder: string): boolean {
    return holder === this.me || this.alive
  }

  /** The claim of the one goal the model drives (the test sets it as its event says). */
  set(instanceId: string, claim: DriverClaim | null): void {
    if (claim === null) this.rows.delete(instanceId)
    else this.rows.set(instanceId, claim)
  }

  async read(_machineId: string, instanceId: string): Promise<DriverClaim | null> {
    return this.rows.get(instanceId) ?? null
  }

  async list(machineId = "goal"): Promise<ClaimRow[]> {
    return [...this.rows].map(([instanceId, claim]) => ({ machineId, instanceId, ...claim }))
  }

  async take(_machineId: string, instanceId: string, decide: ClaimDecision): Promise<DriverClaim | null> {
    const next = decide(this.rows.get(instanceId) ?? null)
    if (next !== undefined) this.rows.set(instanceId, next)
    return this.rows.get(instanceId) ?? null
  }

  async renew(holder: string, keys: readonly { instanceId: string }[], until: number): Promise<void> {
    for (const { instanceId } of keys) {
      const row = this.rows.get(instanceId)
      if (row?.holder === holder) this.rows.set(instanceId, { holder, until })
    }
  }

  async release(holder: string, keys: readonly { instanceId: string }[]): Promise<void> {
    for (const { instanceId } of keys) if (this.rows.get(instanceId)?.holder === holder) this.rows.delete(instanceId)
  }
}

/** The driver id of the process the model's paths run in. */
export const MODEL_DRIVER = "model-process"

/** The host's check runs, passing or failing as the test says: by the check's number in the current contract. */
export class FakeCheckRunner implements GoalCheckRunner {
  /** The contract's checks, in order, as the goal holds them now. */
  checks: readonly GoalCheck[] = []
  /** The numbers (from 1) of the checks that fail. */
  failing = new Set<number>()
  runs = 0

  async run(check: GoalCheck): Promise<CheckOutcome> {
    this.runs += 1
    const item = this.checks.findIndex((c) => JSON.stringify(c) === JSON.stringify(check)) + 1
    if (item === 0) throw new Error(`the model's contract has no check ${JSON.stringify(check)}`)
    return this.failing.has(item)
      ? { pass: false, summary: "exit code 1", outputTail: `check ${item} failed` }
      : { pass: true, summary: check.kind === "command" ? "exit code 0" : "text found", outputTail: "" }
  }
}

/** What an auditor session's open or turn fails with, as the model's `goal.audit.failed` carries it. */
export const AUDIT_OPEN_FAILURE = "ECONNREFUSED"
export const AUDIT_TURN_FAILURE = "its turn failed: APIError: overloaded"

interface Deferred<T> {
  resolve(value: T): void
  reject(error: Error): void
}

/**
 * The auditor sessions, held by the test: an open waits until the test names the session (or fails it), a turn ends
 * when the test says so. Sends and stops are recorded.
 */
export class FakeAuditSessions implements GoalAuditSessions {
  private opening: Deferred<string> | undefined
  private readonly turns = new Map<string, Deferred<string>>()
  readonly sent: { session: string; text: string }[] = []
  readonly stopped: string[] = []

  open(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.opening = { resolve, reject }
    })
  }

  async send(session: string, text: string): Promise<void> {
    this.sent.push({ session, text })
  }

  ended(session: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.turns.set(session, { resolve, reject })
    })
  }

  async stop(session: string): Promise<void> {
    this.stopped.push(session)
    this.turns.get(session)?.reject(new Error("its turn was stopped"))
    this.turns.delete(session)
  }

  /** Whether an audit waits for its session to open. */
  get isOpening(): boolean {
    return this.opening !== undefined
  }

  /** Whether an audit waits on this session's turn. */
  waitsOn(session: string): boolean {
    return this.turns.has(session)
  }

  /** The session opens (or cannot). */
  opened(session: string | Error): void {
    const opening = this.opening
    this.opening = undefined
    if (opening === undefined) throw new Error("no auditor session is being opened")
    if (session instanceof Error) opening.reject(session)
    else opening.resolve(session)
  }

  /** The session's turn ends with these words (or fails). */
  finish(session: string, summary: string | Error): void {
    const turn = this.turns.get(session)
    this.turns.delete(session)
    if (turn === undefined) throw new Error(`no audit waits on ${session}`)
    if (summary instanceof Error) turn.reject(summary)
    else turn.resolve(summary)
  }
}

/** The workspace as the audits see it: the same snapshot every time, and a one-line diff. */
export class FakeAuditWorkspace implements GoalAuditWorkspace {
  static readonly BASE = "tree-at-arm"
  async snapshot(): Promise<string | null> {
    return FakeAuditWorkspace.BASE
  }
  async diff(base: string): Promise<string> {
    return `diff --git a/src/a.ts b/src/a.ts (from ${base})\n+export const A = 1\n`
  }
}
