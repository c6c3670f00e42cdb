// Pure predicates behind the job machine's guards and the supervisor's decisions (their refusal texts are in
// job.refusals.ts). Times are epoch milliseconds carried by events.

export const DEFAULT_IDLE_MS = 60_000
export const DEFAULT_MAX_WAIT_MS = 120_000
export const MAX_WAIT_CAP_MS = 600_000
/** Survive jobs outlive their host and are adopted by the next one; at most this many at once. */
export const MAX_SURVIVORS = 100

/** Where a waiting caller stands against its two deadlines. */
export interface DeadlineClock {
  now: number
  /** The last output (or the start, before any). */
  lastActivityAt: number
  idleMs: number
  startedAt: number
  maxWaitMs: number
}

/** No new output for the idle budget since the last output (or since the start). */
export function isIdleAt({ now, lastActivityAt, idleMs }: Pick<DeadlineClock, "now" | "lastActivityAt" | "idleMs">): boolean {
  return now - lastActivityAt >= idleMs
}

/** The caller has waited the whole budget; the process itself is never killed for it. */
export function isMaxWaitReachedAt({ now, startedAt, maxWaitMs }: Pick<DeadlineClock, "now" | "startedAt" | "maxWaitMs">): boolean {
  return now - startedAt >= maxWaitMs
}

/**
 * Which deadline a waiting caller hit first, when a tick finds one or both passed: a late tick must not call a
 * max-wait release "idle" just because both have passed by now.
 */
export function firstDeadlineReached(clock: DeadlineClock): "idle" | "max-wait" | null {
  const idle = isIdleAt(clock)
  const maxWait = isMaxWaitReachedAt(clock)
  if (idle && maxWait) return clock.lastActivityAt + clock.idleMs <= clock.startedAt + clock.maxWaitMs ? "idle" : "max-wait"
  return idle ? "idle" : maxWait ? "max-wait" : null
}

/** The earliest moment a waiting caller may be released without an exit: the next deadline to tick at. */
export function nextDeadline({ lastActivityAt, idleMs, startedAt, maxWaitMs }: Omit<DeadlineClock, "now">): number {
  return Math.min(lastActivityAt + idleMs, startedAt + maxWaitMs)
}

/** Whether one more survive job would pass the cap of live survivors (a job that dies with its host never does). */
export function isOverSurvivorCap({ survive, liveSurvivors, maxSurvivors }: { survive: boolean; liveSurvivors: number; maxSurvivors: number }): boolean {
  return survive && liveSurvivors >= maxSurvivors
}

/**
 * What a live job an earlier host left becomes here: a survive job whose own process still runs is adopted, and so is
 * one that ended while no host ran when its shim kept the exit status (its end is known, and reported); anything
 * else is orphaned (killed first when its process still runs: it escaped its fence).
 */
export function isAdoptable({ processAlive, survive, exitKept = false }: { processAlive: boolean; survive: boolean; exitKept?: boolean }): boolean {
  return survive && (processAlive || exitKept)
}

/**
 * What a job record a dead host left (not final) becomes in the process that takes it over: one that never started
 * failed to spawn; a live one is adopted or orphaned (`isAdoptable`); one that already ended, its result perhaps
 * still owed, is taken over as it is.
 */
export type RestoredJobFate = "spawn-failed" | "adopt" | "orphan" | "take-over"

export function restoredJobFate({
  starting,
  live,
  processAlive,
  survive,
  exitKept = false,
}: {
  starting: boolean
  live: boolean
  processAlive: boolean
  survive: boolean
  exitKept?: boolean
}): RestoredJobFate {
  if (starting) return "spawn-failed"
  if (!live) return "take-over"
  return isAdoptable({ processAlive, survive, exitKept }) ? "adopt" : "orphan"
}

/**
 * Who runs a job that has not finished, in one line for a status: its host while that opencode process runs, else
 * why nobody does (the next opencode process with Forge loaded takes it up: a survive job is adopted, any other is
 * recorded as an orphan).
 */
export function jobDriverLineText(host: { pid: number; instance: string } | null, hostAlive: boolean): string {
  if (host === null) return "not driven: its record names no opencode process; the next one with Forge loaded takes it up"
  if (hostAlive) return `driven by opencode process ${host.pid} (plugin instance ${host.instance})`
  return `not driven: its opencode process ${host.pid} has ended; a running opencode process with Forge loaded takes it up within 15 s`
}
