// Pure predicates behind the watchdog machine's guards. Times are epoch milliseconds carried by events.

export const DEFAULT_STALL_MS = 600_000
/** Stall budgets below this would kill honest work; users cannot go under it. */
export const STALL_FLOOR_MS = 60_000
export const WARN_FRACTION = 0.8
/** How long to wait for a stalled call to return after a kill before the next wave. */
export const OBSERVE_MS = 60_000

export type WatchdogMode = "kill" | "dry-run" | "off"

/** When a watched call has used `WARN_FRACTION` of its stall budget. */
export function isWarnDueAt({ now, startedAt, stallMs }: { now: number; startedAt: number; stallMs: number }): boolean {
  return now - startedAt >= stallMs * WARN_FRACTION
}

export function isStallDueAt({ now, startedAt, stallMs }: { now: number; startedAt: number; stallMs: number }): boolean {
  return now - startedAt >= stallMs
}

export function isObservationOverAt({ now, actedAt, observeMs }: { now: number; actedAt: number; observeMs: number }): boolean {
  return now - actedAt >= observeMs
}

/**
 * The processes a wave may target: only those created inside the call's window. A process that existed before the
 * call started can never be the call's doing, so it is never a candidate.
 */
export function withinCallWindow(startedAt: number, candidates: readonly { pid: number; startedAt: number }[]): number[] {
  return candidates.filter((c) => c.startedAt >= startedAt).map((c) => c.pid)
}
