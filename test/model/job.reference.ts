import type { SnapshotFrom } from "xstate"
import type { JobCompletion, JobEvent, JobInput, JobTag, jobMachine } from "../../machines/job.machine"

// An independent statement of the job rules, written from the specification and not from the machine: a plain record
// and one function per event. The model test replays every generated path through it and compares.

export type JobPlace =
  | "starting"
  | "running"
  | "succeededByPattern"
  | "earlyReturned"
  | "exited.wakePending"
  | "exited.unread"
  | "killed"
  | "orphaned"
  | "cleared"

export interface JobRecord {
  place: JobPlace
  pid: number | null
  startedAt: number | null
  lastOutputAt: number | null
  endedAt: number | null
  exitCode: number | null
  signal: string | null
  error: string | null
  completion: JobCompletion | null
  previousRun: boolean
  /** The pid of the host that runs the job: the starting host, then whoever adopted it. */
  hostPid: number
}

export interface JobOutcome {
  record: JobRecord
  /** The event is accepted: it moves the job or updates what it knows. */
  handled: boolean
}

const FINAL: readonly JobPlace[] = ["killed", "orphaned", "cleared"]
const ALIVE: readonly JobPlace[] = ["running", "succeededByPattern", "earlyReturned"]
/** The caller stopped waiting before the end: the end is news it has not read. */
const UNREAD_END_PENDING: readonly JobPlace[] = ["succeededByPattern", "earlyReturned"]

export function initialJobRecord(input: JobInput): JobRecord {
  return {
    place: "starting",
    pid: null,
    startedAt: null,
    lastOutputAt: null,
    endedAt: null,
    exitCode: null,
    signal: null,
    error: null,
    completion: null,
    previousRun: false,
    hostPid: input.host.pid,
  }
}

export function isFinalPlace(place: JobPlace): boolean {
  return FINAL.includes(place)
}

/** The tags a job in this place must carry. */
export function expectedJobTags(place: JobPlace): JobTag[] {
  const tags: JobTag[] = []
  if (place === "running") tags.push("alive", "caller-waiting", "listed")
  else if (place === "starting") tags.push("caller-waiting")
  else if (ALIVE.includes(place)) tags.push("alive", "listed")
  else if (place === "exited.wakePending") tags.push("listed", "wake-pending")
  else if (place === "exited.unread") tags.push("listed")
  return tags
}

export function expectedJobAfter(input: JobInput, record: JobRecord, event: JobEvent): JobOutcome {
  const same: JobOutcome = { record, handled: false }
  const to = (patch: Partial<JobRecord>): JobOutcome => ({ record: { ...record, ...patch }, handled: true })
  const { place } = record

  if (place === "starting") {
    if (event.type === "job.spawned") {
      const started = { pid: event.pid, startedAt: event.at, lastOutputAt: event.at }
      return input.background ? to({ ...started, place: "earlyReturned", completion: "background" }) : to({ ...started, place: "running" })
    }
    if (event.type === "job.spawnFailed") return to({ place: "cleared", error: event.error, endedAt: event.at, completion: "spawn-failed" })
    return same
  }

  if (ALIVE.includes(place)) {
    if (event.type === "job.kill") return to({ place: "killed", endedAt: event.at, completion: "killed" })
    if (event.type === "job.output") {
      const lastOutputAt = Math.max(record.lastOutputAt ?? event.at, event.at)
      if (place === "running" && event.matched && input.hasPattern) return to({ lastOutputAt, place: "succeededByPattern", completion: "pattern" })
      return to({ lastOutputAt })
    }
    if (event.type === "job.exit") {
      const ended = { exitCode: event.code, signal: event.signal, endedAt: event.at }
      // A caller still waiting receives the exit itself: terminal evidence, the entry clears, nothing to wake.
      if (place === "running") return to({ ...ended, place: "cleared", completion: "exit" })
      return to({ ...ended, place: input.notify ? "exited.wakePending" : "exited.unread" })
    }
    if (event.type === "job.tick" && place === "running") {
      const idleAt = (record.lastOutputAt ?? 0) + input.idleMs
      const maxWaitAt = (record.startedAt ?? 0) + input.maxWaitMs
      const idle = event.now >= idleAt
      const maxWait = event.now >= maxWaitAt
      if (!idle && !maxWait) return same
      // The first condition to have become true is the one the caller is told about (idle on a tie).
      const completion: JobCompletion = idle && (!maxWait || idleAt <= maxWaitAt) ? "idle" : "max-wait"
      return to({ place: "earlyReturned", completion })
    }
    // Survive mode: the next start adopts a job whose caller is gone, or ledgers it as an orphan when it died. A job
    // restored while its caller was still waiting has no caller any more: it continues as a background job.
    if (place === "running") {
      if (event.type === "job.adopt") return to({ previousRun: true, hostPid: event.host.pid, place: "earlyReturned", completion: "background" })
      if (event.type === "job.orphan") return to({ place: "orphaned", endedAt: event.at, completion: "orphaned" })
    }
    if (UNREAD_END_PENDING.includes(place)) {
      if (event.type === "job.adopt") return to({ previousRun: true, hostPid: event.host.pid })
      if (event.type === "job.orphan") return to({ place: "orphaned", endedAt: event.at, completion: "orphaned" })
    }
    return same
  }

  if (place === "exited.wakePending" || place === "exited.unread") {
    // A poll that observes the end delivers it, so the wake is dropped either way.
    // A kill after the shell exited delivers the end as a poll does (and kills what the shell left running).
    if (event.type === "job.poll" || event.type === "job.clear" || event.type === "job.kill") return to({ place: "cleared" })
    if (event.type === "job.wake.delivered" && place === "exited.wakePending") return to({ place: "exited.unread" })
    return same
  }

  return same
}

type JobSnapshot = SnapshotFrom<typeof jobMachine>

/** The machine's snapshot, seen through the reference's record. */
export function jobRecordOf(snapshot: JobSnapshot): JobRecord {
  const value = snapshot.value
  const place = (typeof value === "string" ? value : `exited.${value.exited}`) as JobPlace
  const c = snapshot.context
  return {
    place,
    pid: c.pid,
    startedAt: c.startedAt,
    lastOutputAt: c.lastActivityAt,
    endedAt: c.endedAt,
    exitCode: c.exitCode,
    signal: c.signal,
    error: c.error,
    completion: c.completion,
    previousRun: c.previousRun,
    hostPid: c.host.pid,
  }
}
