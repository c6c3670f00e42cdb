import type { LedgerKind, WatchdogContext, WatchdogEvent, WatchdogMachine } from "../../machines/watchdog/watchdog.machine"
import type { EffectArgs, Implementations } from "../lifecycle/lifecycle.definition"
import type { Clock, Logger } from "../lifecycle/lifecycle.ports"
import type { WatchdogLedgerEntry } from "./watchdog.ledger"
import type { LocatedProcess, WatchdogKiller, WatchdogLocator } from "./watchdog.ports"

// The watchdog machine's effects, supplied by the harness: locate a stalled call's processes, kill their trees,
// write ledger entries. Locate and kill run in the background and report back to the same watch with events; the
// machine decides what follows.

/** What the effects know of one watched call beyond the machine's context. */
export interface WatchedCall {
  callId: string
  /** The builtin shell tool that ran it, for the ledger's words. */
  tool: string
  command: string
  /** The directory it runs in: from the call's arguments, then from the shell.env hook. */
  cwd: string | undefined
  /** Every process a wave found, by pid: the kill re-checks each one's start time against it. */
  located: Map<number, LocatedProcess>
}

export interface WatchdogImplementationDeps {
  clock: Clock
  locator: WatchdogLocator
  killer: WatchdogKiller
  log: Logger
  /** The live watch of a call; undefined once it is over (its effects then do nothing). */
  watchOf(callId: string): WatchedCall | undefined
  /** Carries a result back to the watch's machine, only while that same watch is still live. */
  report(watch: WatchedCall, event: WatchdogEvent): void
  /** Runs work that reports back later, never inside the step that asked for it; tracked so the service can flush. */
  track(work: () => Promise<void>): void
  /** Appends a ledger entry in order (and mirrors it to the log). */
  record(entry: WatchdogLedgerEntry): void
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`

export function createWatchdogImplementations(deps: WatchdogImplementationDeps) {
  const locate = ({ context }: EffectArgs<WatchdogMachine>, { wave }: { wave: 1 | 2 }): void => {
    const watch = deps.watchOf(context.callId)
    if (!watch) return
    deps.track(async () => {
      let found: LocatedProcess[] = []
      try {
        found = await deps.locator.locate({ callId: watch.callId, wave, startedAt: context.startedAt, cwd: watch.cwd, command: watch.command })
      } catch (error) {
        deps.log.error(`watchdog could not locate the processes of call ${watch.callId}: ${describe(error)}`)
      }
      for (const process of found) watch.located.set(process.pid, process)
      if (found.some((process) => process.marked)) deps.report(watch, { type: "marker.seen" })
      deps.report(watch, { type: "locate.done", wave, candidates: found.map(({ pid, startedAt }) => ({ pid, startedAt })) })
    })
  }

  const kill = ({ context }: EffectArgs<WatchdogMachine>, { pids }: { pids: number[] }): void => {
    const watch = deps.watchOf(context.callId)
    if (!watch) return
    const targets = pids.map((pid) => ({ pid, startedAt: watch.located.get(pid)?.startedAt ?? context.startedAt }))
    deps.track(async () => {
      let survivors: number[]
      try {
        survivors = (await deps.killer.kill(targets)).survivors
      } catch (error) {
        deps.log.error(`watchdog could not kill the processes of call ${watch.callId}: ${describe(error)}`)
        survivors = [...pids]
      }
      deps.log.info(`watchdog killed the process trees of call ${watch.callId}; survivors: ${survivors.length === 0 ? "none" : survivors.join(", ")}`)
      deps.report(watch, { type: "kill.done", at: deps.clock.now(), survivors })
    })
  }

  const ledger = ({ context, event }: EffectArgs<WatchdogMachine>, { kind }: { kind: LedgerKind }): void => {
    deps.record(entryFor(kind, context, event.type, deps.watchOf(context.callId), deps.clock.now()))
  }

  return { actions: { requestLocate: locate, requestKill: kill, ledger } } satisfies Implementations<WatchdogMachine>
}

/** The ledger entry for one of the machine's ledger effects, in words a user can act on. */
function entryFor(kind: LedgerKind, context: WatchdogContext, eventType: string, watch: WatchedCall | undefined, now: number): WatchdogLedgerEntry {
  const tool = watch?.tool ?? "shell"
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
      // Given up on a wave that found nothing (locate.done), or after an observation that saw no return (a tick).
      if (eventType === "locate.done")
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

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
