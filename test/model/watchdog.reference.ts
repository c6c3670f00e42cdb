import type { SnapshotFrom } from "xstate"
import { type Candidate, type LedgerKind, type WatchdogEvent, type WatchdogInput, type WatchdogTag, type watchdogMachine, watchdogPlaceOf } from "../../machines/watchdog.machine"

// An independent statement of the watchdog rules, written from the specification and not from the machine: a plain
// record, the effects each event must request, and one function per event. The model test replays every generated
// path through it and compares.

export type WatchdogPlace = "off" | "timing" | "warned" | "locating" | "killing" | "observing" | "dryRun" | "unresolved" | "finished"

export interface WatchdogRecord {
  place: WatchdogPlace
  markerSeen: boolean
  wave: 1 | 2
  /** The pids the last wave found inside the call's window. */
  candidates: number[]
  actedAt: number | null
  survivors: number[]
}

/** One requested effect, written the way the test's recorders write them. */
export type WatchdogEffect = `locate:${1 | 2}` | `kill:${string}` | `ledger:${LedgerKind}`

export interface WatchdogOutcome {
  record: WatchdogRecord
  handled: boolean
  effects: WatchdogEffect[]
}

const FINAL: readonly WatchdogPlace[] = ["off", "finished"]

export function isFinalWatchdogPlace(place: WatchdogPlace): boolean {
  return FINAL.includes(place)
}

/** The tags a watchdog in this place must carry. */
export function expectedWatchdogTags(place: WatchdogPlace): WatchdogTag[] {
  if (place === "timing" || place === "warned") return ["timing"]
  if (place === "locating" || place === "killing") return [place]
  if (place === "observing" || place === "dryRun") return ["acted"]
  return []
}

/** The call's start and what the mode asks for before any event. */
export function initialWatchdogOutcome(input: WatchdogInput): WatchdogOutcome {
  const record: WatchdogRecord = { place: input.mode === "off" ? "off" : "timing", markerSeen: false, wave: 1, candidates: [], actedAt: null, survivors: [] }
  return { record, handled: true, effects: [] }
}

/** Only processes created at or after the call's start can be the call's doing. */
export function insideWindow(input: WatchdogInput, candidates: readonly Candidate[]): number[] {
  return candidates.filter((c) => c.startedAt >= input.startedAt).map((c) => c.pid)
}

export function expectedWatchdogAfter(input: WatchdogInput, record: WatchdogRecord, event: WatchdogEvent): WatchdogOutcome {
  const same: WatchdogOutcome = { record, handled: false, effects: [] }
  const to = (patch: Partial<WatchdogRecord>, ...effects: WatchdogEffect[]): WatchdogOutcome => ({ record: { ...record, ...patch }, handled: true, effects })
  const { place } = record
  if (isFinalWatchdogPlace(place)) return same

  if (event.type === "call.end") return to({ place: "finished" })
  if (event.type === "marker.seen") return to({ markerSeen: true })

  const elapsed = event.type === "watchdog.tick" ? event.now - input.startedAt : 0
  const observed = event.type === "watchdog.tick" && event.now - (record.actedAt ?? input.startedAt) >= input.observeMs
  switch (place) {
    case "timing":
      // 80 % of the budget, compared exactly: 5 * elapsed >= 4 * stallMs.
      if (event.type === "watchdog.tick" && 5 * elapsed >= 4 * input.stallMs) return to({ place: "warned" }, "ledger:warn")
      return same
    case "warned":
      if (event.type === "watchdog.tick" && elapsed >= input.stallMs) return to({ place: "locating", actedAt: event.now }, "locate:1")
      return same
    case "locating": {
      if (event.type !== "locate.done") return same
      const pids = insideWindow(input, event.candidates)
      if (pids.length > 0) {
        if (input.mode === "kill" && record.markerSeen) return to({ place: "killing", candidates: pids }, `kill:${pids.join(",")}`, "ledger:kill")
        // dry-run records what it would kill; a kill mode without the marker only infers, so it records too.
        return to({ place: "dryRun", candidates: pids }, input.mode === "dry-run" ? "ledger:dry-run" : "ledger:degraded")
      }
      if (record.wave === 1) return to({ place: "locating", wave: 2, candidates: [] }, "locate:2")
      return to({ place: "unresolved" }, "ledger:unresolved")
    }
    case "killing":
      if (event.type === "kill.done") return to({ place: "observing", actedAt: event.at, survivors: event.survivors })
      return same
    case "observing":
      if (!observed || event.type !== "watchdog.tick") return same
      if (record.wave === 1) return to({ place: "locating", wave: 2, candidates: [], actedAt: event.now }, "locate:2")
      return to({ place: "unresolved" }, "ledger:unresolved")
    case "dryRun":
      if (observed) return to({ place: "unresolved" }, "ledger:unresolved")
      return same
    default:
      return same
  }
}

type WatchdogSnapshot = SnapshotFrom<typeof watchdogMachine>

/** The machine's snapshot, seen through the reference's record. */
export function watchdogRecordOf(snapshot: WatchdogSnapshot): WatchdogRecord {
  const c = snapshot.context
  return {
    place: watchdogPlaceOf(snapshot.value) as WatchdogPlace,
    markerSeen: c.markerSeen,
    wave: c.wave,
    candidates: c.candidates,
    actedAt: c.actedAt,
    survivors: c.survivors,
  }
}
