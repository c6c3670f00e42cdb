// The watchdog's effective settings: the user's options (already validated and floored by the options parser) plus
// a test-only seam that may lower the stall budget below the floor. Users cannot reach the seam through options.
import { OBSERVE_MS, type WatchdogMode } from "../../machines/watchdog/watchdog.gates"
import type { ForgeOptions } from "../config/forge.options"
import { type SeamEnvironment, readTestSeam } from "../config/test.seam"

/** Test-only: a stall budget in ms that may go below the 60 s floor. Never documented for users. */
export const TEST_STALL_ENV = "FORGE_TEST_WATCHDOG_STALL_MS"
/** Test-only: the scanner's tick interval in ms. */
export const TEST_TICK_ENV = "FORGE_TEST_WATCHDOG_TICK_MS"

/** How often the scanner ticks the live watches by default: fine enough for a 60 s floor, cheap when idle. */
export const DEFAULT_TICK_MS = 2_000
/** The smallest value either seam accepts: below it the scanner would spin. */
export const MIN_SEAM_MS = 100

export interface WatchdogSettings {
  mode: WatchdogMode
  stallMs: number
  /** How long to wait for a call to return after acting before the next wave (or "unresolved"). */
  observeMs: number
  /** Interval of the scanner timer. */
  tickMs: number
}

export interface ResolvedWatchdogSettings {
  settings: WatchdogSettings
  /** One sentence per seam value that was invalid and ignored (a config fallback, ledgered by the caller). */
  fallbacks: string[]
}

/** Effective settings from the parsed options and the process environment (read by the composition root). */
export function resolveWatchdogSettings(options: ForgeOptions["watchdog"], env: SeamEnvironment): ResolvedWatchdogSettings {
  const fallbacks: string[] = []
  const seam = (name: string): number | undefined => readTestSeam(env, name, MIN_SEAM_MS, fallbacks)
  const stallMs = seam(TEST_STALL_ENV) ?? options.stallMs
  // Ten ticks per budget at least, so the 80 % warning lands close to its mark even with a lowered budget.
  const tickMs = seam(TEST_TICK_ENV) ?? Math.max(MIN_SEAM_MS, Math.min(DEFAULT_TICK_MS, Math.floor(stallMs / 10)))
  return { settings: { mode: options.mode, stallMs, observeMs: OBSERVE_MS, tickMs }, fallbacks }
}
