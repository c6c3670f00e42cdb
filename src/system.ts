import type { Timers } from "../services/job/job.ports"
import type { Clock } from "../services/lifecycle/lifecycle.ports"

// The real clock and timers every lifecycle of a real host runs on (tests hand in their own).

export const systemClock: Clock = { now: () => Date.now() }

export const systemTimers: Timers = {
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms)
    return { cancel: () => clearTimeout(handle) }
  },
}
