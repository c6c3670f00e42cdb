import { assertEvent, assign, setup } from "xstate"
import { type DriverFacts, mayDrive } from "../driver.claim"
import { type DeadlineClock, firstDeadlineReached, isOverSurvivorCap } from "./job.gates"

// One supervised shell job. The caller (forge_shell) waits while the job is `running`; the FIRST of four conditions
// ends the wait — the process exit, a success-pattern match, idle output, or the max-wait cap — and only the exit
// ends the process. A completion the caller never saw queues exactly one wake; a terminal poll consumes it.
// Two effects are the machine's to declare and the harness's to supply (createJobImplementations): the kill after a
// success-pattern match when keep_alive is false, and the wake owed to the job's session. A job the survivor cap
// refuses ends at birth in `refused`, and the host creates nothing of it.

export const JOB_MACHINE_VERSION = "2"

/**
 * The host that runs (or adopted) a job: a process (pid and start time, so a reused pid is never mistaken) and one
 * plugin instance in it (opencode runs one per directory it serves, and two may share a workspace).
 */
export interface JobHost {
  pid: number
  /** Epoch ms. */
  startedAt: number
  /** Tells plugin instances of one process apart: 1-32 characters of A-Z a-z 0-9 _ -. */
  instance: string
}

/**
 * The job's subreaper shim (pid and start time): every orphaned descendant of the job reparents to it, so its
 * subtree is the job's whole tree. Null when the job runs with the environment markers as its only containment.
 */
export interface JobShim {
  pid: number
  /** Epoch ms. */
  startedAt: number
}

/** What the supervisor read just before the job was asked for: what the birth gate (the survivor cap) decides on. */
export interface JobBirthFacts {
  /** Survive jobs of this host still alive when the job was asked for (adopted ones included). */
  liveSurvivors: number
  /** The cap on live survive jobs in force (MAX_SURVIVORS unless the host lowered it). */
  maxSurvivors: number
}

export interface JobInput {
  jobId: string
  sessionId: string
  command: string
  cwd: string
  logFile: string
  idleMs: number
  maxWaitMs: number
  /** A success pattern was given. */
  hasPattern: boolean
  /** Keep the process alive after the pattern matched (server semantics). */
  keepAlive: boolean
  /** run_in_background: the caller does not wait at all. */
  background: boolean
  /** Queue a wake for an unread completion. */
  notify: boolean
  /** Survive mode: outlives the host, adopted by the next start. */
  survive: boolean
  /** Whose job it is: a restart leaves the jobs of a host that still runs to that host. */
  host: JobHost
  birth: JobBirthFacts
}

export type JobCompletion = "exit" | "pattern" | "idle" | "max-wait" | "background" | "killed" | "spawn-failed" | "orphaned"

export interface JobContext extends Omit<JobInput, "birth"> {
  /** What the birth gate decided on; null only in records written before the gate was the machine's (past it). */
  birth: JobBirthFacts | null
  pid: number | null
  startedAt: number | null
  /** Null before the spawn, for marker-only containment, and in records written before shims existed. */
  shim: JobShim | null
  lastActivityAt: number | null
  endedAt: number | null
  exitCode: number | null
  signal: string | null
  error: string | null
  /** Why the caller stopped waiting (or why the job ended). */
  completion: JobCompletion | null
  /** Adopted from an earlier host run (survive mode). */
  previousRun: boolean
}

export type JobEvent =
  | { type: "job.spawned"; pid: number; at: number; shim?: JobShim | null }
  /**
   * `driver`: set when a restore fails a job its dead host never started (the job's driver claim as the restoring
   * process read it); the spawning process itself sends none, being the job's host.
   */
  | { type: "job.spawnFailed"; error: string; at: number; driver?: DriverFacts }
  | { type: "job.output"; at: number; matched: boolean }
  | { type: "job.tick"; now: number }
  | { type: "job.exit"; code: number | null; signal: string | null; at: number }
  /**
   * `driver`: set by a kill from outside every opencode process (`forgecharts jobs --kill`), the job's driver claim as
   * that process read it (its live host counts as a holder); a host's own kill sends none, being the job's driver.
   */
  | { type: "job.kill"; at: number; driver?: DriverFacts }
  | { type: "job.poll" }
  | { type: "job.wake.delivered" }
  /** `driver`: as for `job.kill`, set by a clear from outside every opencode process (`forgecharts jobs --clear`). */
  | { type: "job.clear"; driver?: DriverFacts }
  /** A restore takes a dead host's job on: `driver` is the job's driver claim as the restoring process read it. */
  | { type: "job.adopt"; at: number; host: JobHost; driver: DriverFacts }
  | { type: "job.orphan"; at: number; driver: DriverFacts }

export type JobTag = "alive" | "caller-waiting" | "wake-pending" | "listed"

interface PatternMatch {
  matched: boolean
  hasPattern: boolean
}

function isPatternMatchOf({ matched, hasPattern }: PatternMatch): boolean {
  return matched && hasPattern
}

/** The output event against the job's pattern settings. */
const patternMatchOf = (context: JobContext, event: JobEvent) => {
  assertEvent(event, "job.output")
  return { matched: event.matched, hasPattern: context.hasPattern, keepAlive: context.keepAlive }
}

/** A tick against the waiting caller's two deadlines. */
const deadlineClockOf = (context: JobContext, event: JobEvent): DeadlineClock => {
  assertEvent(event, "job.tick")
  return {
    now: event.now,
    lastActivityAt: context.lastActivityAt ?? event.now,
    idleMs: context.idleMs,
    startedAt: context.startedAt ?? event.now,
    maxWaitMs: context.maxWaitMs,
  }
}

export const jobMachine = setup({
  types: {
    context: {} as JobContext,
    events: {} as JobEvent,
    input: {} as JobInput,
    tags: {} as JobTag,
  },
  guards: {
    // A record without birth facts is past its birth: only facts the supervisor read can refuse one.
    isOverSurvivorCap: ({ context }) => context.birth !== null && isOverSurvivorCap({ survive: context.survive, ...context.birth }),
    isBackground: ({ context }) => context.background,
    isPatternMatch: (_, params: PatternMatch) => isPatternMatchOf(params),
    // keep_alive: false — the match also ends the process (server semantics are keep_alive: true).
    isPatternMatchWithoutKeepAlive: (_, params: PatternMatch & { keepAlive: boolean }) => isPatternMatchOf(params) && !params.keepAlive,
    isIdle: (_, params: DeadlineClock) => firstDeadlineReached(params) === "idle",
    isMaxWaitReached: (_, params: DeadlineClock) => firstDeadlineReached(params) === "max-wait",
    isNotifying: ({ context }) => context.notify,
    // One process takes a dead host's job on, or records a kill or a clear from outside: the driver claim's live holder
    // keeps it (asked with can() on the claim as read). An event without driver facts is the host's own.
    canDrive: ({ event }) => {
      assertEvent(event, ["job.adopt", "job.orphan", "job.spawnFailed", "job.kill", "job.clear"])
      return event.driver === undefined || mayDrive(event.driver)
    },
  },
  actions: {
    recordSpawn: assign(({ event }) => {
      assertEvent(event, "job.spawned")
      return { pid: event.pid, startedAt: event.at, lastActivityAt: event.at, shim: event.shim ?? null }
    }),
    recordSpawnFailure: assign(({ event }) => {
      assertEvent(event, "job.spawnFailed")
      return { error: event.error, endedAt: event.at, completion: "spawn-failed" as const }
    }),
    recordOutput: assign(({ context, event }) => {
      assertEvent(event, "job.output")
      return { lastActivityAt: Math.max(event.at, context.lastActivityAt ?? 0) }
    }),
    recordExit: assign(({ context, event }) => {
      assertEvent(event, "job.exit")
      return { exitCode: event.code, signal: event.signal, endedAt: event.at, completion: context.completion ?? ("exit" as const) }
    }),
    recordKill: assign(({ event }) => {
      assertEvent(event, "job.kill")
      return { endedAt: event.at, completion: "killed" as const }
    }),
    markPattern: assign({ completion: "pattern" as const }),
    markIdle: assign({ completion: "idle" as const }),
    markMaxWait: assign({ completion: "max-wait" as const }),
    markBackground: assign({ completion: "background" as const }),
    markAdopted: assign(({ event }) => {
      assertEvent(event, "job.adopt")
      return { previousRun: true, host: event.host }
    }),
    markOrphaned: assign(({ event }) => {
      assertEvent(event, "job.orphan")
      return { endedAt: event.at, completion: "orphaned" as const }
    }),
    // Placeholders: each harness provides them (createJobImplementations).
    /** Decides the kill (a `job.kill` back into the machine) and then carries it out: the tree, verified. */
    killAfterMatch: () => {
      throw new Error("job action killAfterMatch not provided")
    },
    /** A completion is owed to the job's session: delivered when that session is idle. */
    wakeOwner: () => {
      throw new Error("job action wakeOwner not provided")
    },
  },
}).createMachine({
  id: "job",
  version: JOB_MACHINE_VERSION,
  context: ({ input }) => ({
    ...input,
    pid: null,
    startedAt: null,
    shim: null,
    lastActivityAt: null,
    endedAt: null,
    exitCode: null,
    signal: null,
    error: null,
    completion: null,
    previousRun: false,
  }),
  initial: "admitting",
  states: {
    // Only a new job passes here: the birth gate. A survive job past the survivor cap is refused before anything of
    // it exists (no registry entry, no log, no process).
    admitting: {
      always: [{ guard: "isOverSurvivorCap", target: "refused" }, { target: "starting" }],
    },
    starting: {
      tags: ["caller-waiting"],
      on: {
        "job.spawned": [
          { guard: "isBackground", target: "earlyReturned", actions: ["recordSpawn", "markBackground"] },
          { target: "running", actions: "recordSpawn" },
        ],
        "job.spawnFailed": { guard: "canDrive", target: "cleared", actions: "recordSpawnFailure" },
      },
    },
    running: {
      tags: ["alive", "caller-waiting", "listed"],
      on: {
        // The caller holds the whole output when the exit ends its wait: terminal evidence, nothing left to wake.
        "job.exit": { target: "cleared", actions: "recordExit" },
        "job.output": [
          {
            guard: { type: "isPatternMatchWithoutKeepAlive", params: ({ context, event }) => patternMatchOf(context, event) },
            target: "succeededByPattern",
            actions: ["recordOutput", "markPattern", "killAfterMatch"],
          },
          {
            guard: { type: "isPatternMatch", params: ({ context, event }) => patternMatchOf(context, event) },
            target: "succeededByPattern",
            actions: ["recordOutput", "markPattern"],
          },
          { actions: "recordOutput" },
        ],
        "job.tick": [
          { guard: { type: "isIdle", params: ({ context, event }) => deadlineClockOf(context, event) }, target: "earlyReturned", actions: "markIdle" },
          {
            guard: { type: "isMaxWaitReached", params: ({ context, event }) => deadlineClockOf(context, event) },
            target: "earlyReturned",
            actions: "markMaxWait",
          },
        ],
        "job.kill": { guard: "canDrive", target: "killed", actions: "recordKill" },
        // A survive job restored after its host (and so its waiting caller) died: nobody waits any more.
        "job.adopt": { guard: "canDrive", target: "earlyReturned", actions: ["markAdopted", "markBackground"] },
        "job.orphan": { guard: "canDrive", target: "orphaned", actions: "markOrphaned" },
      },
    },
    // The caller stopped waiting while the process still runs (a success pattern matched, or the wait ended early):
    // the end is news for a wake or a poll. Two states, one behaviour, differing only in why the caller was released.
    // Written out twice: Stately's extractor reads only literal state configs (it drops a state given as a shared
    // constant), and a shared parent state would rename persisted state values ("detached.earlyReturned").
    succeededByPattern: {
      tags: ["alive", "listed"],
      on: {
        "job.output": { actions: "recordOutput" },
        "job.exit": [
          { guard: "isNotifying", target: "exited.wakePending", actions: "recordExit" },
          { target: "exited.unread", actions: "recordExit" },
        ],
        "job.kill": { guard: "canDrive", target: "killed", actions: "recordKill" },
        "job.adopt": { guard: "canDrive", actions: "markAdopted" },
        "job.orphan": { guard: "canDrive", target: "orphaned", actions: "markOrphaned" },
      },
    },
    // The same configuration as succeededByPattern, on purpose (see above).
    earlyReturned: {
      tags: ["alive", "listed"],
      on: {
        "job.output": { actions: "recordOutput" },
        "job.exit": [
          { guard: "isNotifying", target: "exited.wakePending", actions: "recordExit" },
          { target: "exited.unread", actions: "recordExit" },
        ],
        "job.kill": { guard: "canDrive", target: "killed", actions: "recordKill" },
        "job.adopt": { guard: "canDrive", actions: "markAdopted" },
        "job.orphan": { guard: "canDrive", target: "orphaned", actions: "markOrphaned" },
      },
    },
    exited: {
      tags: ["listed"],
      initial: "unread",
      on: {
        // A poll that observes the end delivers status and output itself: the wake is dropped, the entry cleared.
        "job.poll": { target: "cleared" },
        "job.clear": { guard: "canDrive", target: "cleared" },
        // A kill after the shell exited delivers the exit too, and takes down what the shell left running.
        "job.kill": { guard: "canDrive", target: "cleared" },
        // A dead host's finished job, its result (and any wake) still owed: one process takes it over.
        "job.adopt": { guard: "canDrive", actions: "markAdopted" },
      },
      states: {
        wakePending: {
          tags: ["wake-pending"],
          entry: "wakeOwner",
          on: { "job.wake.delivered": { target: "unread" } },
        },
        unread: {},
      },
    },
    // A job the birth gate refused: never recorded, never spawned.
    refused: { type: "final" },
    killed: { type: "final" },
    orphaned: { type: "final" },
    cleared: { type: "final" },
  },
})

export type JobMachine = typeof jobMachine
