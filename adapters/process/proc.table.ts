// The Linux process table read straight from /proc: no `ps`, no child process, synchronous so that exit
// handlers (where no async work runs) can use it too. Processes vanish mid-scan and foreign ones deny reads;
// both are normal and simply leave a field empty or the process out.
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync, readlinkSync } from "node:fs"

/** What /proc/<pid>/stat tells: cheap to read for every process. */
export interface ProcessStat {
  pid: number
  ppid: number
  /** Process group id. */
  pgid: number
  /** Session id. */
  sid: number
  /** One-letter state from /proc/<pid>/stat: R, S, D, Z (zombie), T, ... */
  state: string
  /** The executable's short name (the `comm` field). */
  comm: string
  /** Start time in clock ticks since boot: with the pid, the process's identity (pids are reused). */
  startTicks: number
}

export interface ProcessInfo extends ProcessStat {
  /** Start time as epoch milliseconds. */
  startedAt: number
  /** Working directory, or null when it cannot be read (permission, already gone). */
  cwd: string | null
  /** Arguments; empty for kernel threads, zombies and unreadable processes. */
  cmdline: string[]
}

let clockTicks: number | undefined
let bootEpochMs: number | undefined

/** Clock ticks per second (USER_HZ), read once: from the aux vector, else `getconf CLK_TCK`, else 100. */
export function clockTicksPerSecond(): number {
  if (clockTicks !== undefined) return clockTicks
  clockTicks = ticksFromAuxv() ?? ticksFromGetconf() ?? 100
  return clockTicks
}

function ticksFromAuxv(): number | undefined {
  try {
    // 64-bit aux vector: (type, value) pairs of 8 bytes each; AT_CLKTCK is type 17.
    const auxv = readFileSync("/proc/self/auxv")
    for (let i = 0; i + 16 <= auxv.length; i += 16) {
      const type = auxv.readBigUInt64LE(i)
      if (type === 0n) break
      if (type === 17n) {
        const value = Number(auxv.readBigUInt64LE(i + 8))
        return value > 0 ? value : undefined
      }
    }
  } catch {
    // Not readable here: fall through to getconf.
  }
  return undefined
}

function ticksFromGetconf(): number | undefined {
  try {
    const value = Number.parseInt(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8", timeout: 2000 }).trim(), 10)
    return value > 0 ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * Boot time as epoch ms, read once. /proc/uptime (10 ms resolution) is preferred over /proc/stat btime, which is
 * truncated to whole seconds and would put every start time up to a second early.
 */
export function bootTimeMs(): number {
  if (bootEpochMs !== undefined) return bootEpochMs
  try {
    const uptimeSeconds = Number.parseFloat(readFileSync("/proc/uptime", "utf8").split(" ")[0] ?? "")
    if (Number.isFinite(uptimeSeconds)) bootEpochMs = Math.round(Date.now() - uptimeSeconds * 1000)
  } catch {
    // Fall back to btime below.
  }
  if (bootEpochMs === undefined) {
    const btime = /^btime\s+(\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))
    if (!btime?.[1]) throw new Error("cannot read the boot time: /proc/uptime and the btime line of /proc/stat are missing")
    bootEpochMs = Number(btime[1]) * 1000
  }
  return bootEpochMs
}

/** Every pid in /proc except the calling process. */
export function listPids(): number[] {
  const pids: number[] = []
  for (const name of readdirSync("/proc")) {
    const pid = Number(name)
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid) pids.push(pid)
  }
  return pids
}

/** /proc/<pid>/stat of one process, or null when it does not exist (or vanished while being read). */
export function readProcessStat(pid: number): ProcessStat | null {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8")
  } catch {
    return null
  }
  // comm may hold spaces and parentheses: it ends at the LAST ")".
  const open = text.indexOf("(")
  const close = text.lastIndexOf(")")
  if (open < 0 || close < open) return null
  const fields = text.slice(close + 2).split(" ")
  // After comm: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
  // priority nice num_threads itrealvalue starttime (field 22 of the whole line).
  const [state, ppid, pgid, sid] = fields
  const startTicks = Number(fields[19])
  if (!state || !Number.isFinite(startTicks)) return null
  return {
    pid,
    ppid: Number(ppid),
    pgid: Number(pgid),
    sid: Number(sid),
    state,
    comm: text.slice(open + 1, close),
    startTicks,
  }
}

function readCwd(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`)
  } catch {
    return null
  }
}

function readCmdline(pid: number): string[] {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, "utf8")
    const args = raw.split("\0")
    if (args.at(-1) === "") args.pop()
    return args
  } catch {
    return []
  }
}

/** One process, or null when it does not exist (or vanished while being read). */
export function readProcess(pid: number): ProcessInfo | null {
  const stat = readProcessStat(pid)
  if (!stat) return null
  return {
    ...stat,
    startedAt: startedAtMs(stat),
    cwd: readCwd(pid),
    cmdline: readCmdline(pid),
  }
}

/** The stat fields of every process except the calling one. */
export function readProcessStats(): ProcessStat[] {
  const table: ProcessStat[] = []
  for (const pid of listPids()) {
    const stat = readProcessStat(pid)
    if (stat) table.push(stat)
  }
  return table
}

/** A snapshot of every readable process except the calling one. */
export function readProcessTable(): ProcessInfo[] {
  const table: ProcessInfo[] = []
  for (const pid of listPids()) {
    const info = readProcess(pid)
    if (info) table.push(info)
  }
  return table
}

/** Whether a stat line belongs to a running process: a zombie (Z) or dead (X) one only waits to be reaped. */
export function isLiveStat(stat: Pick<ProcessStat, "state">): boolean {
  return stat.state !== "Z" && stat.state !== "X"
}

/** When the process started, in epoch ms (10 ms precision). */
export function startedAtMs(stat: Pick<ProcessStat, "startTicks">): number {
  return bootTimeMs() + Math.round((stat.startTicks * 1000) / clockTicksPerSecond())
}

/** Whether the process exists and has not terminated (a zombie is dead, only not yet reaped). */
export function isAlive(pid: number): boolean {
  const stat = readProcessStat(pid)
  return stat !== null && isLiveStat(stat)
}

/** Whether `pid` is still the very process seen before (same start time), so a reused pid is never mistaken. */
export function isSameProcess(pid: number, startTicks: number): boolean {
  const stat = readProcessStat(pid)
  return stat !== null && stat.startTicks === startTicks
}

/**
 * Exact match of one `NAME=value` entry of /proc/<pid>/environ (the environment the process was started with).
 * False when the process is gone or its environment is not readable.
 */
export function hasEnv(pid: number, name: string, value: string): boolean {
  let raw: Buffer
  try {
    raw = readFileSync(`/proc/${pid}/environ`)
  } catch {
    return false
  }
  return environHas(raw, Buffer.from(`${name}=${value}`))
}

function environHas(raw: Buffer, entry: Buffer): boolean {
  let from = 0
  for (;;) {
    const at = raw.indexOf(entry, from)
    if (at < 0) return false
    const startsEntry = at === 0 || raw[at - 1] === 0
    const endsEntry = at + entry.length === raw.length || raw[at + entry.length] === 0
    if (startsEntry && endsEntry) return true
    from = at + 1
  }
}

/** Every process (not the caller) whose environment holds exactly `name=value`. */
export function findByEnv(name: string, value: string): ProcessInfo[] {
  const found: ProcessInfo[] = []
  for (const pid of pidsWithEnv(name, value)) {
    const info = readProcess(pid)
    if (info) found.push(info)
  }
  return found
}

/** The pids (not the caller) whose environment holds exactly `name=value`; no other field is read. */
export function pidsWithEnv(name: string, value: string): number[] {
  const entry = Buffer.from(`${name}=${value}`)
  const found: number[] = []
  for (const pid of listPids()) {
    let raw: Buffer
    try {
      raw = readFileSync(`/proc/${pid}/environ`)
    } catch {
      continue
    }
    if (environHas(raw, entry)) found.push(pid)
  }
  return found
}

/** Children, grandchildren, ... of `pid` by the ppid chain (processes that were reparented are not found here). */
export function descendantsOf(pid: number): ProcessInfo[]
export function descendantsOf<T extends ProcessStat>(pid: number, table: readonly T[]): T[]
export function descendantsOf(pid: number, table: readonly ProcessStat[] = readProcessTable()): ProcessStat[] {
  const children = new Map<number, ProcessStat[]>()
  for (const info of table) {
    const list = children.get(info.ppid)
    if (list) list.push(info)
    else children.set(info.ppid, [info])
  }
  const found: ProcessStat[] = []
  const seen = new Set<number>([pid])
  const queue = [pid]
  while (queue.length > 0) {
    const parent = queue.shift() as number
    for (const child of children.get(parent) ?? []) {
      if (seen.has(child.pid)) continue
      seen.add(child.pid)
      found.push(child)
      queue.push(child.pid)
    }
  }
  return found
}

/**
 * The files under `dir` that some process (the caller included) holds open, as absolute paths. Processes whose fd
 * table is not readable (other users') are skipped.
 */
export function openFilesIn(dir: string): Set<string> {
  const prefix = dir.endsWith("/") ? dir : `${dir}/`
  const open = new Set<string>()
  for (const pid of [process.pid, ...listPids()]) {
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`)
        if (target.startsWith(prefix)) open.add(target)
      } catch {
        // The fd closed, or the process ended, while it was being read.
      }
    }
  }
  return open
}
