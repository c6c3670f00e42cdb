import type { SnapshotFrom } from "xstate"
import { type WatchdogEvent, type WatchdogInput, watchdogMachine } from "../../machines/watchdog/watchdog.machine"
import type { ModelWorldByState } from "../model.world"

// The watchdog's model world: one call watched in each mode (kill, dry-run, off), and what the scanner, the clock,
// the process locator and the killer can send it.

const base: Omit<WatchdogInput, "mode"> = {
  callId: "call_model",
  sessionId: "ses_model",
  command: "node hang.js",
  startedAt: 10_000,
  stallMs: 60_000,
  observeMs: 5_000,
}

// Call window from 10000; warn due at 58000, stall at 70000; a kill reported at 72000 is observed until 77000.
const ticks: WatchdogEvent[] = [57_999, 58_000, 69_999, 70_000, 76_999, 77_000].map((now) => ({ type: "watchdog.tick", now }))
const located: Extract<WatchdogEvent, { type: "locate.done" }>[] = [
  {
    type: "locate.done",
    wave: 1,
    candidates: [
      { pid: 300, startedAt: 10_000 },
      { pid: 200, startedAt: 9_999 },
      { pid: 301, startedAt: 40_000 },
    ],
  },
  {
    type: "locate.done",
    wave: 1,
    candidates: [
      { pid: 1, startedAt: 0 },
      { pid: 200, startedAt: 9_999 },
    ],
  },
  { type: "locate.done", wave: 2, candidates: [] },
  { type: "locate.done", wave: 2, candidates: [{ pid: 302, startedAt: 65_000 }] },
]
const killsDone: WatchdogEvent[] = [
  { type: "kill.done", at: 72_000, survivors: [] },
  { type: "kill.done", at: 72_000, survivors: [301] },
]

/**
 * What the world can produce in a state: the scanner sees a marker only while it times an unmarked call; a wave's
 * answer arrives only while that wave is being located, a kill's only while it runs. Ticks and the call's end can
 * come at any time.
 */
function eventsIn(state: SnapshotFrom<typeof watchdogMachine>): WatchdogEvent[] {
  const { context } = state
  return [
    ...(state.hasTag("timing") && !context.markerSeen ? [{ type: "marker.seen" } as const] : []),
    ...ticks,
    ...(state.hasTag("locating") ? located.filter((e) => e.wave === context.wave) : []),
    ...(state.hasTag("killing") ? killsDone : []),
    { type: "call.end", at: 80_000 },
  ]
}

export function watchdogModel(): ModelWorldByState<typeof watchdogMachine> {
  return {
    machine: watchdogMachine,
    configs: (["kill", "dry-run", "off"] as const).map((mode) => ({ name: `mode ${mode}`, input: { ...base, mode } })),
    events: eventsIn,
  }
}
