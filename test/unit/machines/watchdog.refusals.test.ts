import { describe, expect, it } from "vitest"
import { type SnapshotFrom, getNextSnapshot, initialTransition } from "xstate"
import { type WatchdogEvent, type WatchdogInput, watchdogMachine, watchdogPlaceOf } from "../../../machines/watchdog/watchdog.machine"
import { explainWatchdogRefusal } from "../../../machines/watchdog/watchdog.refusals"

type Snapshot = SnapshotFrom<typeof watchdogMachine>

const T0 = 1_700_000_000_000
const input: WatchdogInput = { callId: "call_1", sessionId: "ses_1", command: "node hang.js", startedAt: T0, stallMs: 600_000, observeMs: 60_000, mode: "kill" }
const tick = (afterMs: number): WatchdogEvent => ({ type: "watchdog.tick", now: T0 + afterMs })
const mine = { pid: 102, startedAt: T0 + 5_000 }

function reach(events: WatchdogEvent[], overrides: Partial<WatchdogInput> = {}): Snapshot {
  let [snapshot] = initialTransition(watchdogMachine, { ...input, ...overrides })
  for (const event of events) {
    expect(snapshot.can(event), `${event.type} in ${watchdogPlaceOf(snapshot.value)}`).toBe(true)
    snapshot = getNextSnapshot(watchdogMachine, snapshot, event)
  }
  return snapshot
}

const warned = [tick(480_000)]
const locating = [...warned, tick(600_000)]
const states: Record<string, Snapshot> = {
  off: reach([], { mode: "off" }),
  timing: reach([]),
  warned: reach(warned),
  locating: reach(locating),
  killing: reach([{ type: "marker.seen" }, ...locating, { type: "locate.done", wave: 1, candidates: [mine] }]),
  observing: reach([
    { type: "marker.seen" },
    ...locating,
    { type: "locate.done", wave: 1, candidates: [mine] },
    { type: "kill.done", at: T0 + 600_100, survivors: [] },
  ]),
  dryRun: reach([...locating, { type: "locate.done", wave: 1, candidates: [mine] }], { mode: "dry-run" }),
  unresolved: reach([...locating, { type: "locate.done", wave: 1, candidates: [] }, { type: "locate.done", wave: 2, candidates: [] }]),
  finished: reach([{ type: "call.end", at: T0 + 1 }]),
}
const events: WatchdogEvent[] = [
  { type: "marker.seen" },
  tick(1),
  { type: "locate.done", wave: 1, candidates: [mine] },
  { type: "kill.done", at: T0 + 2, survivors: [] },
  { type: "call.end", at: T0 + 3 },
]

describe("explainWatchdogRefusal: what the watchdog machine refused, in words", () => {
  it("every refusal in every state names the call and what the watch waits for", () => {
    let refusals = 0
    for (const [name, snapshot] of Object.entries(states)) {
      expect(watchdogPlaceOf(snapshot.value)).toBe(name)
      for (const event of events) {
        if (snapshot.can(event)) continue
        refusals++
        const text = explainWatchdogRefusal(snapshot, event)
        expect(text, `${event.type} in ${name}`).toContain("the watchdog of call call_1")
        expect(text, `${event.type} in ${name}`).not.toMatch(/undefined|null|NaN|\[object/)
      }
    }
    expect(refusals).toBeGreaterThan(25)
  })

  it("an early tick says when the watch warns and when the stall budget runs out", () => {
    expect(explainWatchdogRefusal(states.timing as Snapshot, tick(1))).toContain(`at ${new Date(T0 + 480_000).toISOString()}`)
    expect(explainWatchdogRefusal(states.warned as Snapshot, tick(500_000))).toContain(`until ${new Date(T0 + 600_000).toISOString()}`)
    expect(explainWatchdogRefusal(states.observing as Snapshot, tick(600_200))).toContain(`until ${new Date(T0 + 660_100).toISOString()}`)
  })

  it("a watch that is off or over says so for every event", () => {
    for (const event of events) {
      expect(explainWatchdogRefusal(states.off as Snapshot, event)).toContain('watchdog mode "off"')
      expect(explainWatchdogRefusal(states.finished as Snapshot, event)).toContain("is over: the call ended")
    }
  })
})
