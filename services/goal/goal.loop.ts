import { type GoalLease, type TurnActivity, isDrivenElsewhere } from "../../machines/goal.gates"
import type { GoalMachine } from "../../machines/goal.machine"
import { GateRefusal } from "../lifecycle/gate.refusal"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { GoalSnapshot } from "./goal.lifecycle"
import type { Clock, Logger } from "../lifecycle/lifecycle.ports"
import type { Timers } from "../jobs/job.ports"
import { type GoalDriver, GoalSendError, type SessionFacts } from "./goal.ports"

export interface GoalLoopDeps {
  lifecycle: Lifecycle<GoalMachine>
  clock: Clock
  timers: Timers
  facts: SessionFacts
  driver: GoalDriver
  log: Logger
}

// The harness's half of the continuation loop. The machine holds the loop's state and its one deadline (`dueAt`, set
// by `session.idle`); this class only turns the host's session events into machine events and keeps one timer per
// goal at the deadline the snapshot says — so a restart re-arms the same deadline from the restored snapshot. When the
// timer fires it gathers the facts the decision needs (speaker, draft plan, spend) and the machine decides.

export class GoalLoop {
  private readonly timers = new Map<string, { at: number; cancel(): void }>()
  private readonly stopObserving: () => void

  constructor(private readonly deps: GoalLoopDeps) {
    this.stopObserving = deps.lifecycle.observe((id, snapshot) => this.schedule(id, snapshot))
  }

  /** The session's goal that is driving (active), if this process knows one. */
  private drivingFor(sessionId: string): GoalSnapshot | undefined {
    for (const [, snapshot] of this.deps.lifecycle.instances()) if (snapshot.hasTag("driving") && snapshot.context.sessionId === sessionId) return snapshot
    return undefined
  }

  /** opencode says the session went idle: the owner's goal starts (or restarts) its debounce. */
  async sessionIdle(sessionId: string): Promise<void> {
    await this.step(sessionId, { type: "session.idle", now: this.deps.clock.now(), driver: this.deps.driver.id })
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
    event: { type: "session.idle"; now: number; driver: string } | { type: "session.busy" } | { type: "goal.activity"; kind: keyof TurnActivity },
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
   * After a restore: re-arms the timers of every goal the snapshots say is due, and starts the loop again for a
   * driving goal whose driver died (opencode sends no idle for a session it did not run since it started), when its
   * session runs nothing here. A goal another live process drives is left to it.
   */
  async resumeAll(): Promise<void> {
    for (const [goalPath, snapshot] of this.deps.lifecycle.instances()) {
      this.schedule(goalPath, snapshot)
      const { sessionId, lease } = snapshot.context
      if (!snapshot.hasTag("driving") || snapshot.hasTag("due") || snapshot.hasTag("awaiting-user") || sessionId === null) continue
      if (this.isDrivenElsewhere(lease)) continue
      try {
        if (await this.deps.facts.isIdle(sessionId)) await this.sessionIdle(sessionId)
      } catch (error) {
        this.deps.log.warn(`goal ${goalPath}: could not tell whether its session is idle after the restore: ${String(error)}`)
      }
    }
  }

  /**
   * One timer per goal, at the snapshot's deadline; while another live process holds the goal's lease, at the lease's
   * end instead (that process decides until then; a lease nobody renews is taken over).
   */
  private schedule(goalPath: string, snapshot: GoalSnapshot): void {
    const dueAt = snapshot.hasTag("due") ? this.decisionAt(snapshot) : null
    const current = this.timers.get(goalPath)
    if (current !== undefined && current.at === dueAt) return
    current?.cancel()
    this.timers.delete(goalPath)
    if (dueAt === null) return
    const handle = this.deps.timers.setTimeout(() => void this.fire(goalPath), Math.max(dueAt - this.deps.clock.now(), 0))
    this.timers.set(goalPath, { at: dueAt, cancel: () => handle.cancel() })
  }

  private decisionAt({ context: { dueAt, lease } }: GoalSnapshot): number | null {
    if (dueAt === null) return null
    return lease !== null && this.isDrivenElsewhere(lease) ? Math.max(dueAt, lease.until) : dueAt
  }

  /** The machine's own lease rule, asked for this process now: another live process holds the goal's running lease. */
  private isDrivenElsewhere(lease: GoalLease | null): boolean {
    const { driver, clock } = this.deps
    const holderAlive = lease !== null && lease.holder !== driver.id && driver.isAlive(lease.holder)
    return isDrivenElsewhere({ lease, driver: driver.id, holderAlive, now: clock.now() })
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
      const { facts, driver } = this.deps
      const [draftPlan, spend, speaker] = await Promise.all([facts.hasDraftPlan(sessionId), facts.spend(sessionId, armedAt ?? 0), facts.speaker(sessionId)])
      const holder = goal.context.lease?.holder
      await this.deps.lifecycle.dispatch(goalPath, {
        type: "loop.due",
        now: this.deps.clock.now(),
        // A speaker that cannot be told is not the forge agent: the loop never drives a turn it cannot attribute.
        speaker: speaker === "forge" ? "forge" : "other",
        draftPlan,
        spend,
        driver: driver.id,
        holderAlive: holder === undefined || holder === driver.id || driver.isAlive(holder),
      })
    } catch (error) {
      if (error instanceof GoalSendError) {
        await this.deps.lifecycle
          .dispatch(goalPath, { type: "loop.failed", now: this.deps.clock.now(), error: error.message })
          .catch((e: unknown) => this.deps.log.warn(`goal ${goalPath}: ${String(e)}`))
        return
      }
      // The machine said no: another process decided first (the goal moved on), or holds the lease (wait for its end).
      if (error instanceof GateRefusal) {
        const latest = this.deps.lifecycle.snapshot(goalPath)
        if (latest !== undefined) this.schedule(goalPath, latest)
        return
      }
      // A fact could not be had: the next idle decides again.
      this.deps.log.warn(`goal ${goalPath}: the loop could not decide: ${String(error)}`)
    }
  }

  dispose(): void {
    this.stopObserving()
    for (const timer of this.timers.values()) timer.cancel()
    this.timers.clear()
  }
}
