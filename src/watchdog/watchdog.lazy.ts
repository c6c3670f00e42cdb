import { existsSync } from "node:fs"
import { createProcessLocator, processClock } from "../../adapters/process/process.locator"
import { createProcessKiller } from "../../adapters/process/watchdog.tree.kill"
import { type ForgeOptions, optionFallbacks } from "../../services/config/forge.options"
import type { LedgerStore } from "../../services/lifecycle/ledger.ports"
import type { LifecycleHost } from "../../services/lifecycle/lifecycle.host"
import type { Logger } from "../../services/lifecycle/lifecycle.ports"
import { watchdogLedgerOn } from "../../services/watchdog/watchdog.ledger"
import type { WatchdogLedger, WatchdogTicker } from "../../services/watchdog/watchdog.ports"
import { WatchdogService } from "../../services/watchdog/watchdog.service"
import { resolveWatchdogSettings } from "../../services/watchdog/watchdog.settings"
import { watchdogMachine } from "../../machines/watchdog/watchdog.machine"
import { explainWatchdogRefusal } from "../../machines/watchdog/watchdog.refusals"
import { createWatchdogImplementations } from "../../services/watchdog/watchdog.implementations"
import type { LifecycleParts } from "../forge.module"

/** The scanner timer of a real host: unref'd, so a watch never keeps the process alive. */
export const intervalTicker: WatchdogTicker = {
  every(ms, fn) {
    const handle = setInterval(fn, ms)
    handle.unref()
    return { cancel: () => clearInterval(handle) }
  },
}

export interface HostWatchdog {
  service: WatchdogService
  /** Disposes the service (the ledger store belongs to the composition, which closes it). */
  close(): Promise<void>
}

/**
 * The hang watchdog of one host process: the /proc locator and killer, the ledger in the workspace's database,
 * and the settings from the plugin options (plus the test-only seams in `env`). Undefined where /proc is missing:
 * without readable process environments there is no exact location, and this host does not infer.
 */
export function createHostWatchdog(options: {
  log: Logger
  options: ForgeOptions
  /** The plugin options as given, to ledger the watchdog options that fell back to their defaults. */
  rawOptions: unknown
  env: Readonly<Record<string, string | undefined>>
  /** The workspace's ledger store (on the runtime's connection, opened on first use): the ledger writes through it. */
  ledgers: LedgerStore
  ledger?: WatchdogLedger
  /** The workspace's lifecycle host, to keep the watches beside the other lifecycles; else the service keeps its own. */
  host?: LifecycleHost
}): HostWatchdog | undefined {
  if (!existsSync("/proc/self/environ")) {
    options.log.info("no /proc here: the hang watchdog stands down")
    return undefined
  }
  const { settings, fallbacks } = resolveWatchdogSettings(options.options.watchdog, options.env)
  const ledger = options.ledger ?? watchdogLedgerOn(options.ledgers, (problem) => options.log.warn(`watchdog ledger: ${problem}`))
  const service = new WatchdogService({
    settings,
    clock: processClock,
    ticker: intervalTicker,
    locator: createProcessLocator(),
    killer: createProcessKiller(),
    ledger,
    log: options.log,
    host: options.host,
  })
  const optionProblems = optionFallbacks(options.rawOptions).filter((f) => f.key.startsWith("watchdog."))
  service.recordConfigFallbacks([...optionProblems.map((f) => f.message), ...fallbacks])
  return {
    service,
    async close() {
      await service.dispose()
    },
  }
}

/** The watchdog lifecycle's lazy part. */
export const watchdogParts: LifecycleParts<"watchdog"> = {
  machine: watchdogMachine,
  createImplementations: createWatchdogImplementations,
  explainRefusal: explainWatchdogRefusal,
  // A watch is born with every watched shell call: its input is all it needs.
  explainBirthRefusal: null,
  restore: { when: "never", why: "a watch lives as long as its shell call, in the process that runs it" },
  driver: { kind: "own-process" },
  create: (parts) =>
    createHostWatchdog({ log: parts.log, options: parts.options, rawOptions: parts.rawOptions, env: parts.env, ledgers: parts.ledgers, host: parts.host })
      ?.service,
  close: async (watchdog) => watchdog?.dispose(),
}
