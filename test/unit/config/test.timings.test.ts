import { describe, expect, it } from "vitest"
import { GOAL_DEBOUNCE_MS } from "../../../machines/goal/goal.gates"
import {
  DEFAULT_TIMINGS,
  TEST_DRIVER_WATCH_ENV,
  TEST_GOAL_DEBOUNCE_ENV,
  TEST_LOOP_STALL_ENV,
  TEST_RESTORE_DELAY_ENV,
  resolveTimings,
} from "../../../services/config/test.timings"

// The plugin's fixed waits: today's values unless a test lowers them through its test-only seams in the environment.

describe("the plugin's waits", () => {
  it("without a seam: today's production values, no fallback", () => {
    expect(DEFAULT_TIMINGS).toEqual({ goalDebounceMs: GOAL_DEBOUNCE_MS, restore: { afterStartMs: 5_000, afterTurnsMs: 100 }, driverWatchMs: 3_000 })
    expect(GOAL_DEBOUNCE_MS).toBe(2_000)
    expect(resolveTimings({})).toEqual({ timings: DEFAULT_TIMINGS, fallbacks: [] })
    // An empty value is no value (a shell's `FOO= opencode`); other variables are not read.
    expect(resolveTimings({ [TEST_GOAL_DEBOUNCE_ENV]: "", [TEST_RESTORE_DELAY_ENV]: "", [TEST_DRIVER_WATCH_ENV]: "", FORGE_TEST_OTHER_MS: "1" })).toEqual({
      timings: DEFAULT_TIMINGS,
      fallbacks: [],
    })
  })

  it("each valid seam replaces its wait, down to its minimum", () => {
    const { timings, fallbacks } = resolveTimings({ [TEST_GOAL_DEBOUNCE_ENV]: "300", [TEST_RESTORE_DELAY_ENV]: "1000", [TEST_DRIVER_WATCH_ENV]: "500" })
    expect(fallbacks).toEqual([])
    expect(timings).toEqual({ goalDebounceMs: 300, restore: { afterStartMs: 1_000, afterTurnsMs: 100 }, driverWatchMs: 500 })
    expect(resolveTimings({ [TEST_GOAL_DEBOUNCE_ENV]: "50", [TEST_RESTORE_DELAY_ENV]: "0", [TEST_DRIVER_WATCH_ENV]: "100" })).toEqual({
      timings: { goalDebounceMs: 50, restore: { afterStartMs: 0, afterTurnsMs: 0 }, driverWatchMs: 100 },
      fallbacks: [],
    })
  })

  it("a loop's stall timeout is the option's unless a test lowers it, to 1 s at least", () => {
    expect(resolveTimings({}).timings.loopStallMs).toBeUndefined()
    expect(resolveTimings({ [TEST_LOOP_STALL_ENV]: "4000" }).timings.loopStallMs).toBe(4_000)
    expect(resolveTimings({ [TEST_LOOP_STALL_ENV]: "999" })).toEqual({
      timings: DEFAULT_TIMINGS,
      fallbacks: [`${TEST_LOOP_STALL_ENV}="999" is not an integer of at least 1000 ms; ignored`],
    })
  })

  it("a restore lowered below the wait behind the first request is never pushed later by that request", () => {
    expect(resolveTimings({ [TEST_RESTORE_DELAY_ENV]: "40" }).timings.restore).toEqual({ afterStartMs: 40, afterTurnsMs: 40 })
  })

  it("a seam that is not an integer of at least its minimum is ignored and reported, the others still apply", () => {
    const { timings, fallbacks } = resolveTimings({ [TEST_GOAL_DEBOUNCE_ENV]: "49", [TEST_RESTORE_DELAY_ENV]: "-1", [TEST_DRIVER_WATCH_ENV]: "500" })
    expect(timings).toEqual({ ...DEFAULT_TIMINGS, driverWatchMs: 500 })
    expect(fallbacks).toEqual([
      `${TEST_GOAL_DEBOUNCE_ENV}="49" is not an integer of at least 50 ms; ignored`,
      `${TEST_RESTORE_DELAY_ENV}="-1" is not an integer of at least 0 ms; ignored`,
    ])
    // Digits only: Number() would read " " as 0 and "1e3" as 1000.
    expect(resolveTimings({ [TEST_RESTORE_DELAY_ENV]: " " }).timings.restore).toEqual(DEFAULT_TIMINGS.restore)
    for (const raw of ["soon", "1.5", "1e3", "0x100", " 500", "-500", "99999999999999999999"]) {
      const resolved = resolveTimings({ [TEST_DRIVER_WATCH_ENV]: raw })
      expect(resolved.timings.driverWatchMs, raw).toBe(3_000)
      expect(resolved.fallbacks, raw).toEqual([`${TEST_DRIVER_WATCH_ENV}=${JSON.stringify(raw)} is not an integer of at least 100 ms; ignored`])
    }
  })
})
