import type { DriverFacts } from "../../machines/driver.claim"
import type { TurnActivity } from "../../machines/goal/goal.gates"
import type { GoalEvent, GoalMachine } from "../../machines/goal/goal.machine"
import { GateRefusal } from "../lifecycle/gate.refusal"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { GoalSnapshot } from "./goal.lifecycle"
import type { Clock, Logger } from "../lifecycle/lifecycle.ports"
import type { Timers } from "../job/job.ports"
import type { DriverClaims } from "../lifecycle/driver.claim"
import { ClaimBusyError } from "../lifecycle/driver.claim.ports"
import { GoalSendError, type SessionFacts } from "./goal.ports"
import { GOAL_CLAIMS } from "./goal.claims"

/** How soon the loop looks again when the database was locked at its deadline. */
const BUSY_RETRY_MS = 1_000

export interface GoalLoopDeps {
  lifecycle: Lifecycle<GoalMachine>
  clock: Clock
  timers: Timers
  facts: SessionFacts
  /** The workspace's one driver claim: only its holder (or a process taking over a dead one's) decides a goal's idle. */
  claims: DriverClaims
  log: Logger
  /** Tells the user in the session, with no model turn (why the loop cannot drive the goal); without it, the log only. */
  tell?: (sessionId: string, text: string) => Promise<void>
  /**
   * The goal as its document says now (the service's `followDocument`): a hand pause or abandon is followed before the
   * loop decides, so no brief goes out for a goal its document stopped. Without it, the record alone decides.
   */
  follow?: (goal: GoalSnapshot) => Promise<GoalSnapshot>
}

// The harness's half of the continuation loop. The machine holds the loop's state and its one deadline (`dueAt`, set
// by `session.idle`); this class only turns the host's session events into machine events and keeps one timer per
// goal at the deadline the snapshot says — so a restart re-arms the same deadline from the restored snapshot. When the
// timer fires it gathers the facts the decision needs (speaker, draft plan, spend) and the machine decides.

export class GoalLoop {
  private readonly timers = new Map<string, { at: number; cancel(): void }>()
  /** Why the loop could not decide for a goal at its last deadline (a document it cannot write), until it decides again. */
  private readonly stalls = new Map<string, string>()
  private readonly stopObserving: () => void

  constructor(private readonly deps: GoalLoopDeps) {
    this.stopObserving = deps.lifecycle.observe((id, snapshot) => {
      this.schedule(id, snapshot)
      // A goal that needs no driver any more (paused without a dialog open, finished) frees its claim at once.
      if (!snapshot.hasTag("driving") && !snapshot.hasTag("awaiting-user"))
        deps.claims.release(GOAL_CLAIMS, id).catch((error: unknown) => deps.log.warn(`goal ${id}: its driver claim could not be released: ${String(error)}`))
    })
  }

  /** The session's goal that is driving (active), if this process knows one. */
  private drivingFor(sessionId: string): GoalSnapshot | undefined {
    for (const [, snapshot] of this.deps.lifecycle.instances()) if (snapshot.hasTag("driving") && snapshot.context.sessionId === sessionId) return snapshot
    return undefined
  }

  /** opencode says the session went idle: the owner's goal starts (or restarts) its debounce. */
  async sessionIdle(sessionId: string): Promise<void> {
    await this.step(sessionId, { type: "session.idle", now: this.deps.clock.now() })
  }

  /** The session works again (the user typed, a wake arrived): a pending debounce is dropped. */
  async sessionBusy(sessionId: string): Promise<void> {
    const goal = this.drivingFor(sessionId)
    if (goal?.hasTag("due")) await this.step(sessionId, { type: "session.busy" })
  }

  /**
   * A job's wake is due in the session: when its goal's next decision will send a brief, the brief carries the wake
   * (one prompt per idle, never two racing). False: no brief follows, and the job sends its wake itself.
   */
  async carryWake(sessionId: string, text: string): Promise<boolean> {
    const goal = this.drivingFor(sessionId)
    if (goal === undefined) return false
    const event = { type: "job.wake" as const, text }
    const { goalPath } = goal.context
    try {
      if (!this.deps.lifecycle.can(goalPath, event)) return false
      await this.deps.lifecycle.dispatch(goalPath, event)
      return true
    } catch (error) {
      if (!(error instanceof GateRefusal)) this.deps.log.warn(`goal ${goalPath}: a job's wake could not be held for the brief: ${String(error)}`)
      return false
    }
  }

  /** Something in the session counted as progress (a write, a forge_shell run, a check, a plan tick). */
  async activity(sessionId: string, kind: keyof TurnActivity): Promise<void> {
    await this.step(sessionId, { type: "goal.activity", kind })
  }

  private async step(
    sessionId: string,
    event: { type: "session.idle"; now: number } | { type: "session.busy" } | { type: "goal.activity"; kind: keyof TurnActivity },
  ): Promise<void> {
    const goal = this.drivingFor(sessionId)
    if (goal === undefined) return
    const { goalPath } = goal.context
    try {
      if (this.deps.lifecycle.can(goalPath, event)) await this.deps.lifecycle.dispatch(goalPath, event)
    } catch (error) {
      if (!(error instanceof GateRefusal)) this.deps.log.warn(`goal ${goalPath}: ${event.type} failed: ${String(error)}`)
    }
  }

  /**
   * After a restore, and at every look of the driver watch: re-arms the timers of every goal the snapshots say is due,
   * and starts the loop again for a driving goal whose driver died (opencode sends no idle for a session it did not
   * run since it started), when its session runs nothing here. A goal a live process drives is left to it.
   */
  async resumeAll(): Promise<void> {
    for (const [goalPath, snapshot] of [...this.deps.lifecycle.instances()]) {
      this.schedule(goalPath, snapshot)
      const { sessionId } = snapshot.context
      if (!snapshot.hasTag("driving") || snapshot.hasTag("due") || snapshot.hasTag("awaiting-user") || sessionId === null) continue
      try {
        // Read first, so a goal its live driver runs (or this process drives) costs no write and no status request.
        const facts = await this.deps.claims.facts(GOAL_CLAIMS, goalPath)
        if (facts.claim?.holder === facts.me || !this.deps.lifecycle.can(goalPath, this.takeOver(facts))) continue
        if (!(await this.deps.facts.isIdle(sessionId))) continue
        // The machine's driver gate decides again on the claim as read inside the claim's write.
        let event: GoalEvent | undefined
        const may = (latest: DriverFacts) => {
          event = this.takeOver(latest)
          return latest.claim?.holder !== latest.me && this.deps.lifecycle.can(goalPath, event)
        }
        const { taken } = await this.deps.claims.drive(GOAL_CLAIMS, goalPath, may)
        if (taken && event !== undefined) await this.deps.lifecycle.dispatch(goalPath, event)
      } catch (error) {
        this.deps.log.warn(`goal ${goalPath}: could not take up its loop: ${String(error)}`)
      }
    }
  }

  /** This process takes the goal over: its loop decides after a debounce, as after an idle (the machine's gate first). */
  private takeOver(driver: DriverFacts): GoalEvent {
    return { type: "goal.restored", driver, now: this.deps.clock.now() }
  }

  /** One timer per goal, at the snapshot's deadline. */
  private schedule(goalPath: string, snapshot: GoalSnapshot, at?: number): void {
    const dueAt = snapshot.hasTag("due") ? Math.max(snapshot.context.dueAt ?? 0, at ?? 0) : null
    const current = this.timers.get(goalPath)
    if (current !== undefined && current.at === dueAt) return
    // A look again later (a live holder's claim) stays: the holder decides meanwhile, and the goal leaves "due".
    if (current !== undefined && dueAt !== null && at === undefined && current.at > dueAt) return
    current?.cancel()
    this.timers.delete(goalPath)
    if (dueAt === null) return
    const handle = this.deps.timers.setTimeout(() => void this.fire(goalPath), Math.max(dueAt - this.deps.clock.now(), 0))
    this.timers.set(goalPath, { at: dueAt, cancel: () => handle.cancel() })
  }

  /** The deadline passed: the facts, then the machine's decision (pause, park or send the brief). */
  private async fire(goalPath: string): Promise<void> {
    this.timers.delete(goalPath)
    await this.deps.lifecycle.refresh()
    const goal = this.deps.lifecycle.snapshot(goalPath)
    if (goal === undefined || !goal.hasTag("due")) return
    // A timer that fired before its deadline (a clock that moved back, a timer that runs early) waits again.
    if (goal.context.dueAt !== null && this.deps.clock.now() < goal.context.dueAt) return this.schedule(goalPath, goal)
    const { sessionId, armedAt } = goal.context
    if (sessionId === null) return
    try {
      if (this.deps.follow !== undefined && !(await this.deps.follow(goal)).hasTag("due")) return
      const { facts, claims, lifecycle } = this.deps
      const [draftPlan, spend, speaker] = await Promise.all([facts.hasDraftPlan(sessionId), facts.spend(sessionId, armedAt ?? 0), facts.speaker(sessionId)])
      // A speaker that cannot be told is not the forge agent: the loop never drives a turn it cannot attribute.
      const due = {
        type: "loop.due" as const,
        now: this.deps.clock.now(),
        speaker: speaker === "forge" ? ("forge" as const) : ("other" as const),
        draftPlan,
        spend,
      }
      // The machine's driver guard, asked on the claim as it stands inside the claim's write transaction.
      const { taken, facts: driver } = await claims.drive(GOAL_CLAIMS, goalPath, (latest) => lifecycle.can(goalPath, { ...due, driver: latest }))
      if (!taken) {
        // A live process holds the goal: it decides. Looked at again when its claim would lapse unrenewed.
        const latest = lifecycle.snapshot(goalPath)
        if (latest !== undefined && driver.claim !== null) this.schedule(goalPath, latest, driver.claim.until)
        return
      }
      await lifecycle.dispatch(goalPath, { ...due, driver })
      this.stalls.delete(goalPath)
    } catch (error) {
      if (error instanceof GoalSendError) {
        await this.deps.lifecycle
          .dispatch(goalPath, { type: "loop.failed", now: this.deps.clock.now(), error: error.message })
          .catch((e: unknown) => this.deps.log.warn(`goal ${goalPath}: ${String(e)}`))
        return
      }
      // The database stayed locked for a moment: not the goal's trouble, and nothing to tell. The loop looks again soon.
      if (error instanceof ClaimBusyError) {
        this.deps.log.warn(`goal ${goalPath}: ${error.message}; trying again in ${BUSY_RETRY_MS} ms`)
        const latest = this.deps.lifecycle.snapshot(goalPath)
        if (latest !== undefined) this.schedule(goalPath, latest, this.deps.clock.now() + BUSY_RETRY_MS)
        return
      }
      // The machine said no: another process decided first (the goal moved on).
      if (error instanceof GateRefusal) {
        const latest = this.deps.lifecycle.snapshot(goalPath)
        if (latest !== undefined) this.schedule(goalPath, latest)
        return
      }
      // A fact could not be had, or the step could not be written (a mangled document): nothing is live and undriven
      // unsaid. The session is told once, /goal names it, and the loop keeps trying (the driver watch re-arms it).
      await this.stalled(goalPath, sessionId, error)
    }
  }

  /** Why the goal's loop could not decide at its last deadline; undefined when it decided since. */
  stalledWhy(goalPath: string): string | undefined {
    return this.stalls.get(goalPath)
  }

  private async stalled(goalPath: string, sessionId: string, error: unknown): Promise<void> {
    const why = `goal ${goalPath} cannot be driven: ${reasonOf(error)}. Fix the goal document (or discard the goal with /goal discard); the loop keeps trying meanwhile.`
    if (this.stalls.get(goalPath) === why) return
    this.stalls.set(goalPath, why)
    this.deps.log.warn(why)
    await this.deps.tell?.(sessionId, `[forge:goal-stalled] ${why}`).catch((e: unknown) => this.deps.log.warn(`goal ${goalPath}: ${String(e)}`))
  }

  dispose(): void {
    this.stopObserving()
    for (const timer of this.timers.values()) timer.cancel()
    this.timers.clear()
  }
}

/** An error's message with its causes (a failed query names only its SQL; SQLite's reason is the cause). */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  return error.cause === undefined ? error.message : `${error.message} (${reasonOf(error.cause)})`
}
