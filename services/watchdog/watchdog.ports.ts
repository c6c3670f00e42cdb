// What the watchdog needs from the world. adapters/process provides the POSIX locator and killer, adapters/storage
// the ledger; a test provides fakes. Nothing here knows opencode, /proc or SQLite.

/** The environment variable the shell.env hook stamps on each watched call's process: its value is the call id. */
export const WATCHDOG_MARK_VAR = "FORGE_WATCHDOG_MARK"

/** One process a locator found for a stalled call. */
export interface LocatedProcess {
  pid: number
  /** Epoch ms the process was created, on the same clock as the service's `Clock` (see WatchdogServiceDeps). */
  startedAt: number
  /** Whether the process carries the call's marker (exact location), rather than matching by inference. */
  marked: boolean
  /** The process's command line, for the ledger. */
  command: string
}

export interface LocateRequest {
  callId: string
  /** 1: the processes carrying the call's marker. 2: those plus processes whose command lives in the call's directory. */
  wave: 1 | 2
  /** Epoch ms the call started: nothing created before it is ever returned. */
  startedAt: number
  /** The directory the call ran in, when known (the shell.env hook reports it). */
  cwd: string | undefined
  /** The command text the call ran. */
  command: string
}

export interface WatchdogLocator {
  /** Of the given call ids, those whose marker some live process carries right now. */
  markedCalls(callIds: readonly string[]): Promise<Set<string>>
  /** The processes of a stalled call, created inside its window (never the host, never the locator's own probes). */
  locate(request: LocateRequest): Promise<LocatedProcess[]>
}

export interface KillTarget {
  pid: number
  /** The start time the locator saw: a pid whose process has changed since (reused pid) is left alone. */
  startedAt: number
}

export interface WatchdogKiller {
  /** Kills each target's whole tree and verifies: the pids still alive afterwards. */
  kill(targets: readonly KillTarget[]): Promise<{ survivors: number[] }>
}

/** The bounded intervention ledger, declared beside its entry (so the ledger file never imports this one). */
export type { WatchdogLedger } from "./watchdog.ledger"

/** The scanner timer: one repeating callback. Hosts unref it, so a watch never keeps a process alive. */
export interface WatchdogTicker {
  every(ms: number, fn: () => void): { cancel(): void }
}
