// Pure predicates behind the job machine's guards. Times are epoch milliseconds carried by events.

export const DEFAULT_IDLE_MS = 60_000
export const DEFAULT_MAX_WAIT_MS = 120_000
export const MAX_WAIT_CAP_MS = 600_000

/** No new output for the idle budget since the last output (or since the start). */
export function isIdleAt(now: number, lastActivityAt: number, idleMs: number): boolean {
  return now - lastActivityAt >= idleMs
}

/** The caller has waited the whole budget; the process itself is never killed for it. */
export function isMaxWaitReachedAt(now: number, startedAt: number, maxWaitMs: number): boolean {
  return now - startedAt >= maxWaitMs
}

/**
 * Which deadline a waiting caller hit first, when a tick finds one or both passed: a late tick must not call a
 * max-wait release "idle" just because both have passed by now.
 */
export function firstDeadlineReached(now: number, lastActivityAt: number, idleMs: number, startedAt: number, maxWaitMs: number): "idle" | "max-wait" | null {
  const idle = isIdleAt(now, lastActivityAt, idleMs)
  const maxWait = isMaxWaitReachedAt(now, startedAt, maxWaitMs)
  if (idle && maxWait) return lastActivityAt + idleMs <= startedAt + maxWaitMs ? "idle" : "max-wait"
  return idle ? "idle" : maxWait ? "max-wait" : null
}

/** The earliest moment a waiting caller may be released without an exit: the next deadline to tick at. */
export function nextDeadline(lastActivityAt: number, idleMs: number, startedAt: number, maxWaitMs: number): number {
  return Math.min(lastActivityAt + idleMs, startedAt + maxWaitMs)
}
