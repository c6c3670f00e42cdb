// What the job supervisor needs from the world; adapters/process provides it on POSIX.
import type { JobHost, JobShim } from "../../machines/job/job.machine"

export interface ExitReport {
  code: number | null
  signal: string | null
  /** Epoch ms of the exit event. */
  at: number
}

export interface SpawnRequest {
  jobId: string
  command: string
  cwd: string
  logFile: string
  /** Fenced jobs die with the host on every path; survive-mode jobs are not fenced. */
  fenced: boolean
  /** The sandbox command line the shell runs inside, or null: unconfined. */
  sandbox: readonly string[] | null
}

export interface RunningProcess {
  pid: number
  /** Epoch ms. */
  startedAt: number
  /** The job's subreaper shim, or null when the environment markers are its only containment. */
  shim?: JobShim | null
  /** How the job is contained, e.g. "subreaper (perl prctl)" or "environment marker only (<reason>)". */
  containment?: string
  /** Resolves on the process's exit event — never on stdio EOF. */
  exited: Promise<ExitReport>
}

/** What a kill needs to find a job's processes. */
export interface JobProcessTarget {
  pid: number
  jobId: string
  shim?: JobShim | null
}

export type MatchOutcome = "match" | "no-match" | "timed-out"

/** A success pattern compiled for matching off the host's event loop. */
export interface OutputMatcher {
  /** Time budget of one feed (ms): a feed that needs longer is cut off as "timed-out" and matching stays off. */
  readonly budgetMs: number
  feed(text: string): Promise<MatchOutcome>
  dispose(): void
}

export interface JobProcesses {
  /** The interpreter family commands run under, for the tool description (e.g. "bash"). */
  shellFamily(): string
  spawn(request: SpawnRequest): Promise<RunningProcess>
  /**
   * Kills the whole tree (the shim's subtree, group, marked escapees) and verifies: the survivors that could not be killed. SIGTERM
   * first; whatever still lives after `graceMs` gets SIGKILL (the adapter's default grace when not given).
   */
  killTree(job: JobProcessTarget, options?: { graceMs?: number }): Promise<{ survivors: number[] }>
  /** Kills synchronously with no waiting: for exit handlers, where nothing async runs. */
  killTreeNow(job: JobProcessTarget): void
  /**
   * Whether `pid` is still the very process that started at `startedAt` (epoch ms): a pid reused by another process
   * after a restart is never mistaken for the job.
   */
  isSameProcess(pid: number, startedAt: number): boolean
  /** Whether a job host (a plugin instance of some process) still runs; the caller's own host included. */
  isHostAlive(host: JobHost): boolean
  /**
   * Calls back once when a process that is not our child (an adopted survive job) is gone, with its exit status when
   * its shim kept one (else null); returns a stop function.
   */
  watchGone(job: { pid: number; startedAt: number; logFile: string }, onGone: (exit: Omit<ExitReport, "at"> | null) => void): () => void
  /** The exit status a job's shim kept beside its log (null when it kept none): how a job that ended unseen ended. */
  keptExit(logFile: string): Omit<ExitReport, "at"> | null
  /**
   * A matcher of `source` with `flags` ("m" when not given); throws a clear error for a pattern that is not a valid
   * regular expression.
   */
  createMatcher(source: string, flags?: string): OutputMatcher
  /** Calls back whenever the log file grows; returns a stop function. */
  watchGrowth(logFile: string, onGrowth: (size: number) => void): () => void
  /** Current size of the log in bytes (0 when it does not exist yet). */
  sizeOf(logFile: string): Promise<number>
  readTail(logFile: string, maxBytes: number): Promise<string>
  readNew(logFile: string, fromOffset: number, maxBytes: number): Promise<{ text: string; nextOffset: number }>
  readLines(logFile: string, offset: number, limit: number): Promise<{ lines: string[]; total: number; truncated: boolean }>
}

/** Where job logs live, and the bound on how many stay. */
export interface JobLogs {
  pathFor(jobId: string): string
  /** Whether the job's log is still on disk (rotation removes the oldest); false for an id that names no log. */
  exists(jobId: string): Promise<boolean>
  /** Deletes the oldest logs beyond the bound, never one of the given live jobs'. */
  rotate(keepJobIds: ReadonlySet<string>): Promise<void>
}

/** Asks the host whether a session is idle now (opencode: session.status). */
export type SessionIdleQuery = (sessionId: string) => Promise<boolean>

/** Sends a prompt into a session without waiting for the turn (opencode: promptAsync). */
export type WakeSender = (sessionId: string, text: string) => Promise<void>

export interface Timers {
  setTimeout(fn: () => void, ms: number): { cancel(): void }
}
