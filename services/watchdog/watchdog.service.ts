// The hang watchdog's runtime: one watch per builtin shell call of a forge-family session, each a watchdog machine
// instance on the lifecycle host (memory only), ticked by one scanner timer; the machine's effects (locate, kill,
// ledger) are supplied by createWatchdogImplementations. The machine decides everything (when to warn, act, degrade,
// give up); this service only carries events both ways.
import { type WatchdogEvent, type WatchdogMachine, watchdogPlaceOf } from "../../machines/watchdog/watchdog.machine"
import { isWatchedShellCall } from "../../machines/exec.partition"
import type { Lifecycle } from "../lifecycle/lifecycle"
import { LifecycleHost } from "../lifecycle/lifecycle.host"
import type { Clock, Logger } from "../lifecycle/lifecycle.ports"
import type { WatchedCall } from "./watchdog.implementations"
import type { WatchdogLedgerEntry } from "./watchdog.ledger"
import { defineWatchdogLifecycle } from "./watchdog.lifecycle"
import { WATCHDOG_MARK_VAR, type WatchdogKiller, type WatchdogLedger, type WatchdogLocator, type WatchdogTicker } from "./watchdog.ports"
import type { WatchdogSettings } from "./watchdog.settings"

export interface WatchdogServiceDeps {
  settings: WatchdogSettings
  /** Must be the clock the locator's process start times are on, so the call window compares like with like. */
  clock: Clock
  ticker: WatchdogTicker
  locator: WatchdogLocator
  killer: WatchdogKiller
  ledger: WatchdogLedger
  log: Logger
  /**
   * The workspace's lifecycle host, where the watches live beside the other lifecycles. Without one the service
   * keeps them on a host of its own; they are memory-only either way (see defineWatchdogLifecycle).
   */
  host?: LifecycleHost
}

/** A builtin shell call as the tool hook sees it. */
export interface ShellCallStart {
  callId: string
  sessionId: string
  /** The agent speaking in the session; only the forge family is watched. */
  agent: string | undefined
  tool: string
  command: string
  /** The directory from the call's arguments, when given; the shell.env hook reports the one it really runs in. */
  cwd?: string
}

/** A live watch, for diagnostics and tests. */
export interface WatchSnapshot {
  callId: string
  sessionId: string
  command: string
  cwd: string | undefined
  startedAt: number
  /** The machine's innermost state ("timing", "warned", "locating", "killing", "observing", "dryRun", "unresolved"). */
  place: string
  markerSeen: boolean
  wave: 1 | 2
  candidates: number[]
  survivors: number[]
}

export class WatchdogService {
  /** The call behind each live watch; its machine lives on the lifecycle, under the same call id. */
  private readonly watches = new Map<string, WatchedCall>()
  private readonly lifecycle: Lifecycle<WatchdogMachine>
  private readonly pending = new Set<Promise<void>>()
  private writes: Promise<void> = Promise.resolve()
  private timer: { cancel(): void } | undefined
  private ticking = false
  private disposed = false

  constructor(private readonly deps: WatchdogServiceDeps) {
    const host = deps.host ?? new LifecycleHost({ repository: async () => undefined, clock: deps.clock, log: deps.log })
    this.lifecycle = defineWatchdogLifecycle(host, {
      clock: deps.clock,
      locator: deps.locator,
      killer: deps.killer,
      log: deps.log,
      watchOf: (callId) => this.watches.get(callId),
      report: (watch, event) => this.send(watch, event),
      track: (work) => this.track(work),
      record: (entry) => this.record(entry),
    })
  }

  get settings(): WatchdogSettings {
    return this.deps.settings
  }

  /**
   * tool.execute.before: starts timing the call. False when the call is not watched (another agent, another tool,
   * mode "off" — the machine ends at once and times nothing).
   */
  callStarted(call: ShellCallStart): boolean {
    if (this.disposed || !isWatchedShellCall(call.agent, call.tool)) return false
    if (this.watches.has(call.callId)) return true
    // Registered before the start: the effects look the watch up by call id.
    this.watches.set(call.callId, { callId: call.callId, tool: call.tool, command: call.command, cwd: call.cwd, located: new Map() })
    const first = this.lifecycle.start(call.callId, {
      callId: call.callId,
      sessionId: call.sessionId,
      command: call.command,
      startedAt: this.deps.clock.now(),
      stallMs: this.deps.settings.stallMs,
      observeMs: this.deps.settings.observeMs,
      mode: this.deps.settings.mode,
    })
    if (first.status !== "active") {
      this.forget(call.callId)
      return false
    }
    this.ensureTimer()
    return true
  }

  /**
   * shell.env: the marker to stamp on the call's process, and the directory it really runs in. Empty for a call
   * that is not watched, so other agents' shells carry nothing of ours.
   */
  markerEnv(call: { callId?: string; cwd: string }): Record<string, string> {
    const watch = call.callId === undefined ? undefined : this.watches.get(call.callId)
    if (!watch) return {}
    watch.cwd = call.cwd
    return { [WATCHDOG_MARK_VAR]: watch.callId }
  }

  /** tool.execute.after (or the tool part settling): the call returned; its watch is over. */
  callEnded(callId: string): boolean {
    if (!this.watches.has(callId)) return false
    if (this.isLive(callId)) this.lifecycle.send(callId, { type: "call.end", at: this.deps.clock.now() })
    this.forget(callId)
    this.stopTimerWhenIdle()
    return true
  }

  /** One scanner pass: notes markers that showed up, then ticks every live watch with the current time. */
  async tick(): Promise<void> {
    if (this.ticking || this.disposed) return
    this.ticking = true
    try {
      // Only while timing: a marker seen before the first wave is what lets the machine kill instead of record.
      const unmarked = [...this.watches.values()].filter((w) => {
        const snapshot = this.live(w.callId)
        return snapshot?.hasTag("timing") === true && !snapshot.context.markerSeen
      })
      if (unmarked.length > 0) {
        try {
          const seen = await this.deps.locator.markedCalls(unmarked.map((w) => w.callId))
          for (const watch of unmarked) if (seen.has(watch.callId)) this.send(watch, { type: "marker.seen" })
        } catch (error) {
          this.deps.log.error(`watchdog marker scan failed: ${describe(error)}`)
        }
      }
      const now = this.deps.clock.now()
      for (const watch of [...this.watches.values()]) this.send(watch, { type: "watchdog.tick", now })
    } finally {
      this.ticking = false
    }
  }

  /** The live watches (oldest first). */
  list(): WatchSnapshot[] {
    return [...this.watches.values()].flatMap((watch) => this.snapshotOf(watch) ?? [])
  }

  watchOf(callId: string): WatchSnapshot | undefined {
    const watch = this.watches.get(callId)
    return watch ? this.snapshotOf(watch) : undefined
  }

  /** Ledgers settings that fell back to their defaults (invalid option values, ignored test seams). */
  recordConfigFallbacks(messages: readonly string[]): void {
    for (const message of messages) {
      this.record({ at: this.deps.clock.now(), kind: "config-fallback", callId: null, sessionId: null, command: null, pids: [], message })
    }
  }

  /** Waits until every started locate, kill and ledger write has settled (those they trigger included). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending])
    await this.writes
  }

  /** Stops the scanner and every watch (kills nothing), then waits for the writes in flight. */
  async dispose(): Promise<void> {
    this.disposed = true
    this.timer?.cancel()
    this.timer = undefined
    for (const callId of [...this.watches.keys()]) this.forget(callId)
    await this.flush()
  }

  private ensureTimer(): void {
    this.timer ??= this.deps.ticker.every(this.deps.settings.tickMs, () => void this.tick())
  }

  private stopTimerWhenIdle(): void {
    if (this.watches.size > 0) return
    this.timer?.cancel()
    this.timer = undefined
  }

  private forget(callId: string): void {
    this.watches.delete(callId)
    this.lifecycle.remove(callId)
  }

  /** The watch's snapshot while its machine still runs. */
  private live(callId: string) {
    const snapshot = this.lifecycle.snapshot(callId)
    return snapshot?.status === "active" ? snapshot : undefined
  }

  private isLive(callId: string): boolean {
    return this.live(callId) !== undefined
  }

  /** Runs async work that reports back to the machine; never inside the step that asked for it. */
  private track(work: () => Promise<void>): void {
    const run = Promise.resolve()
      .then(work)
      .catch((error: unknown) => this.deps.log.error(`watchdog effect failed: ${describe(error)}`))
      .finally(() => this.pending.delete(run))
    this.pending.add(run)
  }

  /** Sends to the watch's machine, only while that very watch is live (a late report of an ended call is dropped). */
  private send(watch: WatchedCall, event: WatchdogEvent): void {
    if (this.watches.get(watch.callId) === watch && this.isLive(watch.callId)) this.lifecycle.send(watch.callId, event)
  }

  /** Appends in order (one write at a time) and mirrors the entry to the host log. */
  private record(entry: WatchdogLedgerEntry): void {
    this.deps.log.warn(`watchdog ${entry.kind}: ${entry.message}`, { callId: entry.callId, pids: entry.pids })
    this.writes = this.writes
      .then(() => this.deps.ledger.append(entry))
      .catch((error: unknown) => this.deps.log.error(`watchdog ledger write failed: ${describe(error)}`))
  }

  private snapshotOf(watch: WatchedCall): WatchSnapshot | undefined {
    const snapshot = this.lifecycle.snapshot(watch.callId)
    if (snapshot === undefined) return undefined
    const { context } = snapshot
    return {
      callId: context.callId,
      sessionId: context.sessionId,
      command: context.command,
      cwd: watch.cwd,
      startedAt: context.startedAt,
      place: watchdogPlaceOf(snapshot.value),
      markerSeen: context.markerSeen,
      wave: context.wave,
      candidates: [...context.candidates],
      survivors: [...context.survivors],
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
