// Stand-ins for the watchdog's ports: a clock and a ticker that move only when told, a locator that answers from
// a script, a killer that records. The ledger is the real in-memory one.
import type { Logger } from "../../../services/lifecycle/lifecycle.ports"
import { MemoryWatchdogLedger } from "../../../services/watchdog/watchdog.ledger"
import type { KillTarget, LocateRequest, LocatedProcess, WatchdogKiller, WatchdogLocator, WatchdogTicker } from "../../../services/watchdog/watchdog.ports"
import { WatchdogService } from "../../../services/watchdog/watchdog.service"
import type { WatchdogSettings } from "../../../services/watchdog/watchdog.settings"

export const T0 = 1_700_000_000_000

export class FakeTicker implements WatchdogTicker {
  readonly timers: { ms: number; fn: () => void; cancelled: boolean }[] = []
  every(ms: number, fn: () => void) {
    const timer = { ms, fn, cancelled: false }
    this.timers.push(timer)
    return {
      cancel: () => {
        timer.cancelled = true
      },
    }
  }
  /** The timers still running. */
  live() {
    return this.timers.filter((t) => !t.cancelled)
  }
}

export class FakeLocator implements WatchdogLocator {
  /** Call ids whose marker a process carries. */
  readonly marked = new Set<string>()
  /** What each wave answers, per call id. */
  readonly answers = new Map<string, { 1?: LocatedProcess[]; 2?: LocatedProcess[] }>()
  readonly requests: LocateRequest[] = []
  markerScans = 0
  async markedCalls(callIds: readonly string[]) {
    this.markerScans += 1
    return new Set(callIds.filter((id) => this.marked.has(id)))
  }
  async locate(request: LocateRequest) {
    this.requests.push({ ...request })
    return this.answers.get(request.callId)?.[request.wave] ?? []
  }
}

export class FakeKiller implements WatchdogKiller {
  readonly kills: KillTarget[][] = []
  survivors: number[] = []
  async kill(targets: readonly KillTarget[]) {
    this.kills.push([...targets])
    return { survivors: [...this.survivors] }
  }
}

export function silentLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  const push = (level: string) => (message: string) => void lines.push(`${level}: ${message}`)
  return { lines, info: push("info"), warn: push("warn"), error: push("error") }
}

export const SETTINGS: WatchdogSettings = { mode: "kill", stallMs: 600_000, observeMs: 60_000, tickMs: 2_000 }

/** A service over fakes, with helpers to move time and run the scanner. */
export function harness(settings: Partial<WatchdogSettings> = {}) {
  let now = T0
  const clock = { now: () => now }
  const ticker = new FakeTicker()
  const locator = new FakeLocator()
  const killer = new FakeKiller()
  const ledger = new MemoryWatchdogLedger()
  const log = silentLogger()
  const service = new WatchdogService({ settings: { ...SETTINGS, ...settings }, clock, ticker, locator, killer, ledger, log })
  return {
    service,
    ticker,
    locator,
    killer,
    ledger,
    log,
    /** Sets the clock to T0 + ms, runs one scanner pass and waits for the effects it triggered. */
    async at(ms: number) {
      now = T0 + ms
      await service.tick()
      await service.flush()
    },
    setNow(ms: number) {
      now = T0 + ms
    },
    async kinds() {
      return (await ledger.list()).map((entry) => entry.kind)
    },
  }
}

export const forgeCall = (callId = "call_1", extra: Partial<Parameters<WatchdogService["callStarted"]>[0]> = {}) => ({
  callId,
  sessionId: "ses_1",
  agent: "forge",
  tool: "bash",
  command: "node hang.js",
  ...extra,
})

export const proc = (pid: number, startedAtOffset: number, marked = true): LocatedProcess => ({
  pid,
  startedAt: T0 + startedAtOffset,
  marked,
  command: `proc ${pid}`,
})
