// What both tree killers (jobs and the watchdog) do the same way: send a signal without throwing, pace their polls,
// and tell whether a tracked process is still that very process and alive.
import { isLiveStat, type ProcessStat, readProcessStat } from "./proc.table"

/** How often a kill rescans the tree (ms). */
export const KILL_POLL_MS = 20
/** SIGKILL is not instant for a process in uninterruptible sleep: how long a kill's verification waits for it (ms). */
export const KILL_VERIFY_MS = 1000

/** What a verified kill reports. */
export interface KillReport {
  /** Processes that were signalled and are gone. */
  killed: number[]
  /** Processes still alive after SIGKILL (zombies, already dead, do not count). */
  survivors: number[]
}

/** Sends `name` to `pid` (a negative pid: its group); false when the target is gone (ESRCH) or not ours (EPERM). */
export function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name)
    return true
  } catch {
    return false
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Whether the process seen as `stat` is still that very process (same start) and alive (not a zombie). */
export function isStillAlive(stat: ProcessStat): boolean {
  const now = readProcessStat(stat.pid)
  return now !== null && now.startTicks === stat.startTicks && isLiveStat(now)
}
