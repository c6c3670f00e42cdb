// Killing the process trees the watchdog located: each target (only while it is still the very process that was
// located), its process group when it leads one, and every descendant, forks during the grace included. Verified
// by rescans; never the host or its ancestors. Signals are sent straight from here: no helper process is spawned.
//
// The host's own children (the shells it spawned for tool calls) go last. opencode's builtin shell returns when its
// shell exits with a status, but a shell that dies by a signal leaves the tool waiting for its own timeout. So the
// processes below and beside the shell die first (the hung command, the detached holder of its output), the shell
// gets a moment to exit with a status on its own, and only a shell that is itself the hung process is signalled.
import type { KillTarget, WatchdogKiller } from "../../services/watchdog/watchdog.ports"
import { hostLineage } from "./process.locator"
import { KILL_POLL_MS, KILL_VERIFY_MS, type KillReport, isStillAlive, signal, sleep } from "./kill.signals"
import { descendantsOf, isLiveStat, type ProcessStat, readProcessStat, readProcessStats, startedAtMs } from "./proc.table"

export interface KillProcessTreesOptions {
  /** How long SIGTERM gets before SIGKILL (ms). */
  graceMs?: number
  /** How long the host's own children get to exit with a status once everything else of theirs died (ms). */
  settleMs?: number
  /** The host process (default: this one): it and its ancestors are never signalled. */
  hostPid?: number
}

/** `killed` also counts the host's shells left to exit on their own once their children died. */
export type ProcessTreesKillReport = KillReport

/** The processes one kill pass tracks: identity-checked, rescanned for forks, never protected ones. */
class Tracked {
  readonly stats = new Map<number, ProcessStat>()

  constructor(
    private readonly protectedPids: ReadonlySet<number>,
    private readonly groups: ReadonlySet<number>,
  ) {}

  /** Adds the roots, the members of the groups and every descendant; returns the newly seen. */
  scan(roots: readonly ProcessStat[]): ProcessStat[] {
    const table = readProcessStats()
    const fresh: ProcessStat[] = []
    const add = (stat: ProcessStat) => {
      if (this.stats.has(stat.pid) || this.protectedPids.has(stat.pid) || !isLiveStat(stat)) return
      this.stats.set(stat.pid, stat)
      fresh.push(stat)
    }
    for (const root of roots) add(root)
    for (const stat of table) if (this.groups.has(stat.pgid)) add(stat)
    for (const known of [...this.stats.values()]) for (const child of descendantsOf(known.pid, table)) add(child)
    return fresh
  }

  /** Tracked pids still alive as the same process. */
  alive(among: Iterable<number> = this.stats.keys()): number[] {
    const live: number[] = []
    for (const pid of among) {
      const stat = this.stats.get(pid)
      if (stat && isStillAlive(stat)) live.push(pid)
    }
    return live
  }
}

/** SIGTERM `pids` (and `groups` while one of them is still in it), SIGKILL what is left after the grace. */
async function terminate(tracked: Tracked, pids: () => number[], groups: ReadonlySet<number>, graceMs: number): Promise<void> {
  const send = (name: NodeJS.Signals) => {
    const live = tracked.alive(pids())
    // A group is signalled only while a process of ours is still in it: an emptied group id may be reused.
    for (const group of groups) if (live.some((pid) => tracked.stats.get(pid)?.pgid === group)) signal(-group, name)
    for (const pid of live) signal(pid, name)
    return live.length
  }
  const deadline = Date.now() + graceMs
  while (send("SIGTERM") > 0 && Date.now() < deadline) await sleep(Math.min(KILL_POLL_MS, Math.max(1, deadline - Date.now())))
  const verifyUntil = Date.now() + KILL_VERIFY_MS
  while (send("SIGKILL") > 0 && Date.now() < verifyUntil) await sleep(KILL_POLL_MS)
}

/** Kills every target's tree, the host's own children last (see the top of this file), and reports the survivors. */
export async function killProcessTrees(targets: readonly KillTarget[], options: KillProcessTreesOptions = {}): Promise<ProcessTreesKillReport> {
  const graceMs = options.graceMs ?? 2000
  const settleMs = options.settleMs ?? 1000
  const hostPid = options.hostPid ?? process.pid
  const protectedPids = hostLineage(hostPid)
  const hostGroup = readProcessStat(hostPid)?.pgid
  const roots: ProcessStat[] = []
  for (const target of targets) {
    const stat = readProcessStat(target.pid)
    // A pid whose start time changed is a different process now: it is left alone.
    if (stat && isLiveStat(stat) && !protectedPids.has(stat.pid) && startedAtMs(stat) === target.startedAt) roots.push(stat)
  }
  const groups = new Set(roots.filter((root) => root.pgid === root.pid && root.pgid !== hostGroup).map((root) => root.pid))
  const tracked = new Tracked(protectedPids, groups)
  tracked.scan(roots)
  const isShell = (pid: number) => tracked.stats.get(pid)?.ppid === hostPid
  const shells = () => [...tracked.stats.keys()].filter(isShell)
  const others = () => {
    tracked.scan(roots)
    return [...tracked.stats.keys()].filter((pid) => !isShell(pid))
  }

  // First everything but the host's shells; their groups are spared too, since a shell leads its own group.
  const spared = new Set(shells().map((pid) => tracked.stats.get(pid)?.pgid))
  await terminate(tracked, others, new Set([...groups].filter((group) => !spared.has(group))), graceMs)
  // Then the shells that did not exit with a status on their own.
  const settleUntil = Date.now() + settleMs
  while (tracked.alive(shells()).length > 0 && Date.now() < settleUntil) await sleep(KILL_POLL_MS)
  await terminate(tracked, () => [...shells(), ...others()], groups, graceMs)

  const survivors = tracked.alive().sort((a, b) => a - b)
  const killed = [...tracked.stats.keys()].filter((pid) => !survivors.includes(pid)).sort((a, b) => a - b)
  return { killed, survivors }
}

/** The watchdog's killer port over killProcessTrees. */
export function createProcessKiller(options: KillProcessTreesOptions = {}): WatchdogKiller {
  return {
    async kill(targets) {
      const { survivors } = await killProcessTrees(targets, options)
      return { survivors }
    },
  }
}
