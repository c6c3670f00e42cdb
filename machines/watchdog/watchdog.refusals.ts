import type { SnapshotFrom } from "xstate"
import { WARN_FRACTION } from "./watchdog.gates"
import { type WatchdogEvent, type watchdogMachine, watchdogPlaceOf } from "./watchdog.machine"

type WatchdogSnapshot = SnapshotFrom<typeof watchdogMachine>

// When `snapshot.can(event)` says no, these texts say which gate refused and what the watch waits for instead.
// They describe the machine's decision; they never make it. The watchdog's events come from its own service (the
// call's hooks, the clock, its locate and kill effects), so these words are for logs and for harnesses that embed it.

const at = (ms: number) => new Date(ms).toISOString()

export function explainWatchdogRefusal(snapshot: WatchdogSnapshot, event: WatchdogEvent): string {
  const { context } = snapshot
  const watch = `the watchdog of call ${context.callId}`
  const place = watchdogPlaceOf(snapshot.value)
  if (place === "off") return `${watch} is off (watchdog mode "off" in this host's Forge options): it watches nothing and takes no ${event.type}.`
  if (snapshot.status === "done") return `${watch} is over: the call ended, so it takes no ${event.type}.`
  switch (event.type) {
    case "watchdog.tick": {
      if (place === "timing")
        return `${watch} is not due yet: it warns at ${WARN_FRACTION * 100} % of the stall budget, at ${at(context.startedAt + context.stallMs * WARN_FRACTION)}.`
      if (place === "warned") return `${watch} has warned; the stall budget runs until ${at(context.startedAt + context.stallMs)}.`
      if (place === "observing" || place === "dryRun")
        return `${watch} observes what its ${place === "dryRun" ? "dry run recorded" : "kill left"} until ${at((context.actedAt ?? context.startedAt) + context.observeMs)}.`
      if (place === "unresolved") return `${watch} gave up (unresolved): it waits only for the call to end.`
      return `${watch} waits for the ${place === "locating" ? "process listing" : "kill"} it asked for; the clock moves it only after that.`
    }
    case "locate.done":
      return `${watch} is not locating processes (it is ${place}): a listing it did not ask for changes nothing.`
    case "kill.done":
      return `${watch} has no kill under way (it is ${place}).`
    case "marker.seen":
    case "call.end":
      return `${watch} takes no ${event.type} while ${place}.`
  }
}
