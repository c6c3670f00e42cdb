// Killing a job means its whole tree, verified: the subtree of the job's shim (every orphan reparents to it, whatever
// it did to its environment), the process group, every process carrying the job's marker (the fallback, which finds
// `setsid` escapees that kept their environment), their descendants by ppid, and tree-kill's view of the tree.
import treeKill from "tree-kill"
import type { JobShim } from "../../machines/job/job.machine"
import { isSameProcessAt } from "./job.hosts"
import { tellShim } from "./job.shim"
import { JOB_ID_VAR } from "./job.markers"
import { KILL_POLL_MS, KILL_VERIFY_MS, type KillReport, isStillAlive, signal, sleep } from "./kill.signals"
import { descendantsOf, isLiveStat, isSameProcess, type ProcessStat, pidsWithEnv, readProcessStat, readProcessStats } from "./proc.table"

export type { KillReport } from "./kill.signals"

export interface JobTarget {
  /** The job's leader pid, which is also its process group id. */
  pid: number
  /** The job id carried as FORGE_JOB_ID by every process of the job. */
  jobId: string
  /** The job's subreaper shim, when it has one. */
  shim?: JobShim | null
}

export interface KillJobTreeOptions {
  /** How long SIGTERM gets before SIGKILL (ms). */
  graceMs?: number
}

/** The live processes of the job right now: group members, marker carriers and all their descendants. */
function scanTree(target: JobTarget): ProcessStat[] {
  const table = readProcessStats()
  const byPid = new Map(table.map((stat) => [stat.pid, stat]))
  const members = new Map<number, ProcessStat>()
  // Only while the shim is still the shim that was recorded: a reused pid's subtree is never walked. The shim itself
  // is no job process: it leaves on its own once its subtree is empty.
  const shim = liveShim(target)
  if (shim !== null) for (const child of descendantsOf(shim, table)) members.set(child.pid, child)
  for (const stat of table) if (stat.pgid === target.pid) members.set(stat.pid, stat)
  for (const pid of pidsWithEnv(JOB_ID_VAR, target.jobId)) {
    const stat = byPid.get(pid) ?? readProcessStat(pid)
    if (stat) members.set(pid, stat)
  }
  for (const root of [...members.values()]) {
    for (const child of descendantsOf(root.pid, table)) members.set(child.pid, child)
  }
  if (shim !== null) members.delete(shim)
  return [...members.values()].filter(isLiveStat)
}

function liveShim(target: JobTarget): number | null {
  const shim = target.shim
  return shim && isSameProcessAt(shim.pid, shim.startedAt) ? shim.pid : null
}

/** Signals the group and every tracked process whose identity (pid + start time) still holds. */
function signalAll(target: JobTarget, tracked: Map<number, ProcessStat>, name: NodeJS.Signals): void {
  if ([...tracked.values()].some((stat) => stat.pgid === target.pid)) signal(-target.pid, name)
  for (const stat of tracked.values()) {
    if (isSameProcess(stat.pid, stat.startTicks)) signal(stat.pid, name)
  }
}

function track(tracked: Map<number, ProcessStat>, found: readonly ProcessStat[]): ProcessStat[] {
  const fresh: ProcessStat[] = []
  for (const stat of found) {
    if (tracked.has(stat.pid)) continue
    tracked.set(stat.pid, stat)
    fresh.push(stat)
  }
  return fresh
}

/** Tracked processes that are still the same process and still alive (not a zombie). */
function stillAlive(tracked: Map<number, ProcessStat>): number[] {
  return [...tracked.values()].filter(isStillAlive).map((stat) => stat.pid)
}

function treeKillQuietly(pid: number, name: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    try {
      treeKill(pid, name, () => resolve())
    } catch {
      resolve()
    }
  })
}

/**
 * SIGTERM the whole tree, wait up to `graceMs` (returning as soon as everything died), SIGKILL what is left, then
 * rescan and report survivors.
 */
export async function killJobTree(target: JobTarget, options: KillJobTreeOptions = {}): Promise<KillReport> {
  const graceMs = options.graceMs ?? 3000
  const tracked = new Map<number, ProcessStat>()
  track(tracked, scanTree(target))
  // The shim this host started kills its subtree too (it sees every orphan the moment it reparents). Told after the
  // first scan, so the report names what it kills; an adopter holds no pipe to it and relies on the walk alone.
  if (target.shim) tellShim(target.shim.pid, `kill ${Math.max(0, Math.round(graceMs))}`)

  signalAll(target, tracked, "SIGTERM")
  // tree-kill walks the ppid tree with `ps`: a second view of the tree. It runs alongside and is not awaited (its
  // `ps` calls are slow under Bun); the rescans below verify the outcome either way. Only while the leader is still
  // the job's own process: a reused pid must never be walked.
  if (tracked.has(target.pid)) void treeKillQuietly(target.pid, "SIGTERM")

  const deadline = Date.now() + graceMs
  for (;;) {
    // Processes forked during the grace are part of the tree too.
    const fresh = track(tracked, scanTree(target))
    for (const stat of fresh) signal(stat.pid, "SIGTERM")
    if (stillAlive(tracked).length === 0 || Date.now() >= deadline) break
    await sleep(Math.min(KILL_POLL_MS, Math.max(1, deadline - Date.now())))
  }

  const verifyUntil = Date.now() + KILL_VERIFY_MS
  for (;;) {
    track(tracked, scanTree(target))
    const alive = stillAlive(tracked)
    if (alive.length === 0 || Date.now() >= verifyUntil) break
    signalAll(target, new Map(alive.map((pid) => [pid, tracked.get(pid) as ProcessStat])), "SIGKILL")
    await sleep(KILL_POLL_MS)
  }

  const survivors = new Set([...stillAlive(tracked), ...scanTree(target).map((stat) => stat.pid)])
  const killed = [...tracked.keys()].filter((pid) => !survivors.has(pid))
  return { killed: killed.sort((a, b) => a - b), survivors: [...survivors].sort((a, b) => a - b) }
}

/**
 * SIGKILL the group and every process of the tree at once, synchronously, for exit handlers where no async work
 * runs. Two passes: a process forked between the first scan and its kill is caught by the second.
 * Returns the pids that were signalled.
 */
export function killJobTreeNow(target: JobTarget): number[] {
  const signalled = new Set<number>()
  for (let pass = 0; pass < 2; pass++) {
    const tree = scanTree(target)
    // A group member signalled through its group counts even when its reaper (the shim) took it before its own kill.
    if (tree.some((stat) => stat.pgid === target.pid) && signal(-target.pid, "SIGKILL")) {
      for (const stat of tree) if (stat.pgid === target.pid) signalled.add(stat.pid)
    }
    for (const stat of tree) {
      if (signalled.has(stat.pid) && pass > 0) continue
      if (signal(stat.pid, "SIGKILL")) signalled.add(stat.pid)
    }
  }
  return [...signalled].sort((a, b) => a - b)
}
