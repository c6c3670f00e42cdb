import { existsSync } from "node:fs"
import { createProcessLocator, processClock } from "../adapters/process/process.locator"
import { createProcessKiller } from "../adapters/process/watchdog.tree.kill"
import type { StorageConnection } from "../adapters/storage/storage.connection"
import { sharedWatchdogLedger } from "../adapters/storage/watchdog.ledger.repository"
import { type ForgeOptions, optionFallbacks } from "../services/config/forge.options"
import type { LifecycleHost } from "../services/lifecycle/lifecycle.host"
import type { Logger } from "../services/lifecycle/lifecycle.ports"
import type { WatchdogLedger, WatchdogTicker } from "../services/watchdog/watchdog.ports"
import { WatchdogService } from "../services/watchdog/watchdog.service"
import { resolveWatchdogSettings } from "../services/watchdog/watchdog.settings"

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
  /** Closes the ledger's connection (after the service was disposed by the plugin's dispose hook). */
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
  /** The workspace database's connection (the runtime's, opened on first use): the ledger writes through it. */
  connection: () => Promise<StorageConnection>
  ledger?: WatchdogLedger & { close(): Promise<void> }
  /** The workspace's lifecycle host, to keep the watches beside the other lifecycles; else the service keeps its own. */
  host?: LifecycleHost
}): HostWatchdog | undefined {
  if (!existsSync("/proc/self/environ")) {
    options.log.info("no /proc here: the hang watchdog stands down")
    return undefined
  }
  const { settings, fallbacks } = resolveWatchdogSettings(options.options.watchdog, options.env)
  const ledger = options.ledger ?? sharedWatchdogLedger(options.connection)
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
      await ledger.close()
    },
  }
}
