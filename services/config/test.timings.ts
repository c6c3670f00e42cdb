// The plugin's fixed waits as settings: production runs with the defaults below, and the end-to-end suite may lower
// them through test-only seams in the process environment (never documented for users, never plugin options).
import { DRIVER_WATCH_MS } from "../../machines/driver.claim"
import { GOAL_DEBOUNCE_MS } from "../../machines/goal/goal.gates"
import { type SeamEnvironment, readTestSeam } from "./test.seam"

/** Test-only: the debounce of every goal this process creates (a goal keeps the one it was born with). */
export const TEST_GOAL_DEBOUNCE_ENV = "FORGE_TEST_GOAL_DEBOUNCE_MS"
/** Test-only: how long after start-up the background restore begins at the latest. */
export const TEST_RESTORE_DELAY_ENV = "FORGE_TEST_RESTORE_DELAY_MS"
/** Test-only: how often the process renews its driver claims and looks for work whose driver has ended. */
export const TEST_DRIVER_WATCH_ENV = "FORGE_TEST_DRIVER_WATCH_MS"

/** Test-only: the stall timeout of loops' passes (ms), below the 1 minute floor the `loop.stallMs` option holds users to. */
export const TEST_LOOP_STALL_ENV = "FORGE_TEST_LOOP_STALL_MS"

/** Below it an idle is acted on before a busy that follows it can arrive: the debounce would no longer debounce. */
export const MIN_GOAL_DEBOUNCE_MS = 50
/** A one-shot timer: 0 restores right after the config hook, as a host without a schedule does. */
export const MIN_RESTORE_DELAY_MS = 0
/** An interval that reads the database: below it the look would spin. */
export const MIN_DRIVER_WATCH_MS = 100
/** A pass's session is given at least this long between signs of life. */
export const MIN_LOOP_STALL_MS = 1_000

export interface RestoreTimings {
  /** After the config hook: the latest the restore starts. */
  afterStartMs: number
  /** After the last running turn ended (every session idle again). */
  afterTurnsMs: number
}

export interface ForgeTimings {
  /** The debounce new goals' loops run with. */
  goalDebounceMs: number
  /** When the background restore of what an earlier run left begins (adapters/opencode/restore.schedule.ts). */
  restore: RestoreTimings
  /** How often a process renews its driver claims and looks for goals and loops left by a driver that ended. */
  driverWatchMs: number
  /** A test's stall timeout for loops' passes; undefined: the `loop.stallMs` option's. */
  loopStallMs?: number
}

/** Today's production waits. */
export const DEFAULT_TIMINGS: ForgeTimings = {
  goalDebounceMs: GOAL_DEBOUNCE_MS,
  // The restore is CPU work on opencode's one thread: once no turn runs, or a while after start-up at the latest.
  restore: { afterStartMs: 5_000, afterTurnsMs: 100 },
  // With the claim's lapse, work left by an ended driver is taken over within 15 s; the look is cheap (a stat).
  driverWatchMs: DRIVER_WATCH_MS,
}

export interface ResolvedTimings {
  timings: ForgeTimings
  /** One sentence per seam value that was invalid and ignored: the caller logs each as a warning. */
  fallbacks: string[]
}

/** The effective waits: the defaults, with every valid test seam of `env` (read by the composition root) applied. */
export function resolveTimings(env: SeamEnvironment): ResolvedTimings {
  const fallbacks: string[] = []
  const goalDebounceMs = readTestSeam(env, TEST_GOAL_DEBOUNCE_ENV, MIN_GOAL_DEBOUNCE_MS, fallbacks) ?? DEFAULT_TIMINGS.goalDebounceMs
  const afterStartMs = readTestSeam(env, TEST_RESTORE_DELAY_ENV, MIN_RESTORE_DELAY_MS, fallbacks) ?? DEFAULT_TIMINGS.restore.afterStartMs
  // The wait behind the turns is never longer than a lowered wait after start-up.
  const afterTurnsMs = Math.min(DEFAULT_TIMINGS.restore.afterTurnsMs, afterStartMs)
  const driverWatchMs = readTestSeam(env, TEST_DRIVER_WATCH_ENV, MIN_DRIVER_WATCH_MS, fallbacks) ?? DEFAULT_TIMINGS.driverWatchMs
  const loopStallMs = readTestSeam(env, TEST_LOOP_STALL_ENV, MIN_LOOP_STALL_MS, fallbacks)
  return {
    timings: { goalDebounceMs, restore: { afterStartMs, afterTurnsMs }, driverWatchMs, ...(loopStallMs === undefined ? {} : { loopStallMs }) },
    fallbacks,
  }
}
