import type { TurnActivity } from "../../machines/goal.gates"
import type { GoalMachine } from "../../machines/goal.machine"
import { GateRefusal } from "../lifecycle/gate.refusal"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { GoalSnapshot } from "./goal.lifecycle"
import type { Clock, Logger } from "../lifecycle/lifecycle.ports"
import type { Timers } from "../jobs/job.ports"
import { GoalSendError, type SessionFacts } from "./goal.ports"

export interface GoalLoopDeps {
  lifecycle: Lifecycle<GoalMachine>
  clock: Clock
  timers: Timers
  facts: SessionFacts
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
    await this.step(sessionId, { type: "session.idle", now: this.deps.clock.now() })
  }

  /** The session works again (the user typed, a wake arrived): a pending debounce is dropped. */
  async sessionBusy(sessionId: string): Promise<void> {
    const goal = this.drivingFor(sessionId)
    if (goal?.hasTag("due")) await this.step(sessionId, { type: "session.busy" })
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

  /** Re-arms the timers of every goal the snapshots say is due (after a restore). */
  resumeAll(): void {
    for (const [id, snapshot] of this.deps.lifecycle.instances()) this.schedule(id, snapshot)
  }

  private schedule(goalPath: string, snapshot: GoalSnapshot): void {
    const dueAt = snapshot.hasTag("due") ? snapshot.context.dueAt : null
    const current = this.timers.get(goalPath)
    if (current !== undefined && current.at === dueAt) return
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
      const { facts } = this.deps
      const [draftPlan, spend, speaker] = await Promise.all([facts.hasDraftPlan(sessionId), facts.spend(sessionId, armedAt ?? 0), facts.speaker(sessionId)])
      // A speaker that cannot be told is not the forge agent: the loop never drives a turn it cannot attribute.
      await this.deps.lifecycle.dispatch(goalPath, {
        type: "loop.due",
        now: this.deps.clock.now(),
        speaker: speaker === "forge" ? "forge" : "other",
        draftPlan,
        spend,
      })
    } catch (error) {
      if (error instanceof GoalSendError) {
        await this.deps.lifecycle
          .dispatch(goalPath, { type: "loop.failed", now: this.deps.clock.now(), error: error.message })
          .catch((e: unknown) => this.deps.log.warn(`goal ${goalPath}: ${String(e)}`))
        return
      }
      // Another process decided first, or a fact could not be had: the next idle decides again.
      if (!(error instanceof GateRefusal)) this.deps.log.warn(`goal ${goalPath}: the loop could not decide: ${String(error)}`)
    }
  }

  dispose(): void {
    this.stopObserving()
    for (const timer of this.timers.values()) timer.cancel()
    this.timers.clear()
  }
}
