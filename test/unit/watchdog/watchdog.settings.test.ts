import { describe, expect, it } from "vitest"
import { defaultForgeOptions, optionFallbacks, parseForgeOptions } from "../../../services/config/forge.options"
import { DEFAULT_TICK_MS, TEST_STALL_ENV, TEST_TICK_ENV, resolveWatchdogSettings } from "../../../services/watchdog/watchdog.settings"

describe("watchdog settings", () => {
  it("default: kill at 600 s, observe 60 s, tick every 2 s", () => {
    expect(resolveWatchdogSettings(defaultForgeOptions.watchdog, {})).toEqual({
      settings: { mode: "kill", stallMs: 600_000, observeMs: 60_000, tickMs: DEFAULT_TICK_MS },
      fallbacks: [],
    })
  })

  it("users cannot go under the 60 s floor through options; the test seam can", () => {
    const floored = parseForgeOptions({ watchdog: { stallMs: 4_000 } }).options.watchdog
    expect(resolveWatchdogSettings(floored, {}).settings.stallMs).toBe(60_000)
    const seam = resolveWatchdogSettings(floored, { [TEST_STALL_ENV]: "4000", [TEST_TICK_ENV]: "500" })
    expect(seam).toEqual({ settings: { mode: "kill", stallMs: 4_000, observeMs: 60_000, tickMs: 500 }, fallbacks: [] })
    // Without a tick seam the tick shrinks with the budget: ten ticks per budget at least.
    expect(resolveWatchdogSettings(floored, { [TEST_STALL_ENV]: "4000" }).settings.tickMs).toBe(400)
  })

  it("an invalid seam value is ignored and reported as a fallback", () => {
    const { settings, fallbacks } = resolveWatchdogSettings(defaultForgeOptions.watchdog, { [TEST_STALL_ENV]: "soon", [TEST_TICK_ENV]: "5" })
    expect(settings.stallMs).toBe(600_000)
    expect(settings.tickMs).toBe(DEFAULT_TICK_MS)
    expect(fallbacks).toEqual([
      `${TEST_STALL_ENV}="soon" is not an integer of at least 100 ms; ignored`,
      `${TEST_TICK_ENV}="5" is not an integer of at least 100 ms; ignored`,
    ])
  })

  it("option fallbacks name the option and match the parser's warnings", () => {
    const raw = { watchdog: { mode: "loud", stallMs: -1 }, jobs: { mode: "turbo" } }
    const fallbacks = optionFallbacks(raw)
    expect(fallbacks.map((f) => f.key)).toEqual(["jobs.mode", "watchdog.mode", "watchdog.stallMs"])
    expect(fallbacks.map((f) => f.message)).toEqual(parseForgeOptions(raw).warnings)
    expect(optionFallbacks(undefined)).toEqual([])
  })
})
