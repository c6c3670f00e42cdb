// The hang watchdog's runtime: one watchdog machine actor per builtin shell call of a forge-family session, ticked
// by one scanner timer, with the machine's placeholder effects (locate, kill, ledger) run through the ports. The
// machine decides everything (when to warn, act, degrade, give up); this service only carries events both ways.
import { type Actor, createActor } from "xstate"
import { type LedgerKind, type WatchdogContext, type WatchdogEvent, watchdogMachine, watchdogPlaceOf } from "../../machines/watchdog.machine"
import { BUILTIN_SHELL_TOOLS, isForgeFamily } from "../../machines/exec.partition"
import type { Clock, Logger } from "../lifecycle/lifecycle.ports"
import type { WatchdogLedgerEntry } from "./watchdog.ledger"
import { type LocatedProcess, WATCHDOG_MARK_VAR, type WatchdogKiller, type WatchdogLedger, type WatchdogLocator, type WatchdogTicker } from "./watchdog.ports"
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

type WatchdogActor = Actor<typeof watchdogMachine>

interface Watch {
  call: ShellCallStart & { cwd: string | undefined }
  actor: WatchdogActor
  /** Every process a wave found, by pid: the kill re-checks each one's start time against it. */
  located: Map<number, LocatedProcess>
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`

export class WatchdogService {
  private readonly watches = new Map<string, Watch>()
  private readonly machine: typeof watchdogMachine
  private readonly pending = new Set<Promise<void>>()
  private writes: Promise<void> = Promise.resolve()
  private timer: { cancel(): void } | undefined
  private ticking = false
  private disposed = false

  constructor(private readonly deps: WatchdogServiceDeps) {
    this.machine = watchdogMachine.provide({
      actions: {
        requestLocate: ({ context }, { wave }) => this.locate(context.callId, wave),
        requestKill: ({ context }, { pids }) => this.kill(context.callId, pids),
        ledger: ({ context, event }, { kind }) => this.record(this.entryFor(kind, context, event)),
      },
    })
  }

  get settings(): WatchdogSettings {
    return this.deps.settings
  }

  /** Whether a call of `tool` by `agent` is watched: builtin shell calls of the forge family, nothing else. */
  isWatched(agent: string | undefined, tool: string): boolean {
    return BUILTIN_SHELL_TOOLS.includes(tool) && isForgeFamily(agent)
  }

  /**
   * tool.execute.before: starts timing the call. False when the call is not watched (another agent, another tool,
   * mode "off" — the machine ends at once and times nothing).
   */
  callStarted(call: ShellCallStart): boolean {
    if (this.disposed || !this.isWatched(call.agent, call.tool)) return false
    if (this.watches.has(call.callId)) return true
    const actor = createActor(this.machine, {
      input: {
        callId: call.callId,
        sessionId: call.sessionId,
        command: call.command,
        startedAt: this.deps.clock.now(),
        stallMs: this.deps.settings.stallMs,
        observeMs: this.deps.settings.observeMs,
        mode: this.deps.settings.mode,
      },
    })
    const watch: Watch = { call: { ...call, cwd: call.cwd }, actor, located: new Map() }
    actor.subscribe({ error: (error) => this.deps.log.error(`watchdog for call ${call.callId} failed: ${describe(error)}`) })
    // Registered before start: the actions look the watch up by call id.
    this.watches.set(call.callId, watch)
    actor.start()
    if (actor.getSnapshot().status !== "active") {
      this.watches.delete(call.callId)
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
    watch.call.cwd = call.cwd
    return { [WATCHDOG_MARK_VAR]: watch.call.callId }
  }

  /** tool.execute.after (or the tool part settling): the call returned; its watch is over. */
  callEnded(callId: string): boolean {
    const watch = this.watches.get(callId)
    if (!watch) return false
    this.watches.delete(callId)
    if (watch.actor.getSnapshot().status === "active") watch.actor.send({ type: "call.end", at: this.deps.clock.now() })
    watch.actor.stop()
    this.stopTimerWhenIdle()
    return true
  }

  /** One scanner pass: notes markers that showed up, then ticks every live watch with the current time. */
  async tick(): Promise<void> {
    if (this.ticking || this.disposed) return
    this.ticking = true
    try {
      // Only while timing: a marker seen before the first wave is what lets the machine kill instead of record.
      const unmarked = [...this.watches.values()].filter((w) => isActive(w) && w.actor.getSnapshot().hasTag("timing") && !w.actor.getSnapshot().context.markerSeen)
      if (unmarked.length > 0) {
        try {
          const seen = await this.deps.locator.markedCalls(unmarked.map((w) => w.call.callId))
          for (const watch of unmarked) if (seen.has(watch.call.callId) && isActive(watch)) watch.actor.send({ type: "marker.seen" })
        } catch (error) {
          this.deps.log.error(`watchdog marker scan failed: ${describe(error)}`)
        }
      }
      const now = this.deps.clock.now()
      for (const watch of [...this.watches.values()]) if (isActive(watch)) watch.actor.send({ type: "watchdog.tick", now })
    } finally {
      this.ticking = false
    }
  }

  /** The live watches (oldest first). */
  list(): WatchSnapshot[] {
    return [...this.watches.values()].map(snapshotOf)
  }

  watchOf(callId: string): WatchSnapshot | undefined {
    const watch = this.watches.get(callId)
    return watch ? snapshotOf(watch) : undefined
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
    for (const watch of this.watches.values()) watch.actor.stop()
    this.watches.clear()
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

  /** Runs async work that reports back to the actor; never inside the transition that asked for it. */
  private track(work: () => Promise<void>): void {
    const run = Promise.resolve()
      .then(work)
      .catch((error: unknown) => this.deps.log.error(`watchdog effect failed: ${describe(error)}`))
      .finally(() => this.pending.delete(run))
    this.pending.add(run)
  }

  private send(watch: Watch, event: WatchdogEvent): void {
    if (this.watches.get(watch.call.callId) === watch && isActive(watch)) watch.actor.send(event)
  }

  private locate(callId: string, wave: 1 | 2): void {
    const watch = this.watches.get(callId)
    if (!watch) return
    this.track(async () => {
      let found: LocatedProcess[] = []
      try {
        found = await this.deps.locator.locate({
          callId,
          wave,
          startedAt: watch.actor.getSnapshot().context.startedAt,
          cwd: watch.call.cwd,
          command: watch.call.command,
        })
      } catch (error) {
        this.deps.log.error(`watchdog could not locate the processes of call ${callId}: ${describe(error)}`)
      }
      for (const process of found) watch.located.set(process.pid, process)
      if (found.some((process) => process.marked)) this.send(watch, { type: "marker.seen" })
      this.send(watch, { type: "locate.done", wave, candidates: found.map(({ pid, startedAt }) => ({ pid, startedAt })) })
    })
  }

  private kill(callId: string, pids: readonly number[]): void {
    const watch = this.watches.get(callId)
    if (!watch) return
    const startedAt = watch.actor.getSnapshot().context.startedAt
    const targets = pids.map((pid) => ({ pid, startedAt: watch.located.get(pid)?.startedAt ?? startedAt }))
    this.track(async () => {
      let survivors: number[]
      try {
        survivors = (await this.deps.killer.kill(targets)).survivors
      } catch (error) {
        this.deps.log.error(`watchdog could not kill the processes of call ${callId}: ${describe(error)}`)
        survivors = [...pids]
      }
      this.deps.log.info(`watchdog killed the process trees of call ${callId}; survivors: ${survivors.length === 0 ? "none" : survivors.join(", ")}`)
      this.send(watch, { type: "kill.done", at: this.deps.clock.now(), survivors })
    })
  }

  private entryFor(kind: LedgerKind, context: WatchdogContext, event: WatchdogEvent): WatchdogLedgerEntry {
    const now = this.deps.clock.now()
    const watch = this.watches.get(context.callId)
    const tool = watch?.call.tool ?? "shell"
    const base = { at: now, kind, callId: context.callId, sessionId: context.sessionId, command: context.command }
    const list = (pids: readonly number[]) => (pids.length === 0 ? "none" : pids.join(", "))
    const wave = `wave ${context.wave}`
    switch (kind) {
      case "warn":
        return {
          ...base,
          pids: [],
          message:
            `${tool} call ${context.callId} has run ${seconds(now - context.startedAt)} of its ${seconds(context.stallMs)} stall budget; ` +
            `at the budget its processes will be ${context.mode === "kill" ? "killed" : "listed (dry-run)"}. Nothing is sent to the busy session.`,
        }
      case "kill":
        return {
          ...base,
          pids: [...context.candidates],
          message: `${tool} call ${context.callId} stalled for ${seconds(context.stallMs)}: killing the process trees of ${list(context.candidates)} (${wave}, located by the call's marker).`,
        }
      case "dry-run":
        return {
          ...base,
          pids: [...context.candidates],
          message: `${tool} call ${context.callId} stalled for ${seconds(context.stallMs)}: dry-run, would kill the process trees of ${list(context.candidates)} (${wave}); nothing was killed.`,
        }
      case "degraded":
        return {
          ...base,
          pids: [...context.candidates],
          message:
            `${tool} call ${context.callId} stalled for ${seconds(context.stallMs)}, but its processes never carried the watchdog marker ` +
            `(the host's shell environment hook did not reach them): location is inference only, so nothing is killed; ` +
            `would kill ${list(context.candidates)} (${wave}).`,
        }
      case "unresolved": {
        if (event.type === "locate.done")
          return {
            ...base,
            pids: [],
            message:
              (watch?.located.size ?? 0) > 0
                ? `${tool} call ${context.callId} has not returned after the wave 1 kill and wave 2 found no further process of it; diagnostics only.`
                : `${tool} call ${context.callId} stalled for ${seconds(context.stallMs)} and no process of it was found in either wave: a hang with nothing to kill; diagnostics only.`,
          }
        const acted = context.mode === "kill" && context.markerSeen
        const pids = acted ? context.survivors : context.candidates
        return {
          ...base,
          pids: [...pids],
          message: acted
            ? `${tool} call ${context.callId} has not returned ${seconds(context.observeMs)} after the kill (survivors: ${list(context.survivors)}); diagnostics only.`
            : `${tool} call ${context.callId} has not returned ${seconds(context.observeMs)} after its processes were listed (${list(context.candidates)}); nothing was killed.`,
        }
      }
    }
  }

  /** Appends in order (one write at a time) and mirrors the entry to the host log. */
  private record(entry: WatchdogLedgerEntry): void {
    this.deps.log.warn(`watchdog ${entry.kind}: ${entry.message}`, { callId: entry.callId, pids: entry.pids })
    this.writes = this.writes
      .then(() => this.deps.ledger.append(entry))
      .catch((error: unknown) => this.deps.log.error(`watchdog ledger write failed: ${describe(error)}`))
  }
}

function isActive(watch: Watch): boolean {
  return watch.actor.getSnapshot().status === "active"
}

function snapshotOf(watch: Watch): WatchSnapshot {
  const snapshot = watch.actor.getSnapshot()
  const { context } = snapshot
  return {
    callId: context.callId,
    sessionId: context.sessionId,
    command: context.command,
    cwd: watch.call.cwd,
    startedAt: context.startedAt,
    place: watchdogPlaceOf(snapshot.value),
    markerSeen: context.markerSeen,
    wave: context.wave,
    candidates: [...context.candidates],
    survivors: [...context.survivors],
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
