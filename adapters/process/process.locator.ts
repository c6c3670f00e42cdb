// The watchdog's POSIX locator: finds a stalled builtin shell call's processes in /proc. Wave 1 is exact — the
// processes whose environment carries the call's marker. Wave 2 adds processes whose command lives in the call's
// directory: detached stdio holders that left the host's tree and dropped the environment. Both waves only ever
// return processes created inside the call's window, never the host or its ancestors, never a process of another
// call or of a forge_shell job. It reads /proc directly and spawns nothing, so it has no probe process to mistake.
import { readFileSync, readlinkSync, statSync } from "node:fs"
import path from "node:path"
import type { Clock } from "../../services/lifecycle/lifecycle.ports"
import { type LocatedProcess, type LocateRequest, WATCHDOG_MARK_VAR, type WatchdogLocator } from "../../services/watchdog/watchdog.ports"
import { JOB_ID_VAR } from "./job.markers"
import { bootTimeMs, descendantsOf, isLiveStat, listPids, type ProcessInfo, readProcessStat, readProcessTable } from "./proc.table"

/**
 * Epoch ms on the same footing as the start times of the process table (boot time + time since boot, both
 * truncated to the kernel's 10 ms ticks), so "created at or after the call started" holds for a process spawned a
 * millisecond after the call, where wall-clock time and tick-rounded start times could disagree.
 */
export const processClock: Clock = {
  now() {
    const uptime = Number.parseFloat(readFileSync("/proc/uptime", "utf8").split(" ")[0] ?? "")
    if (!Number.isFinite(uptime)) throw new Error("cannot read /proc/uptime")
    return bootTimeMs() + Math.round(uptime * 1000)
  },
}

/** Environment entries of one process, NAME → value; empty when gone or unreadable. */
function readEnviron(pid: number): Map<string, string> {
  const env = new Map<string, string>()
  let raw: string
  try {
    raw = readFileSync(`/proc/${pid}/environ`, "utf8")
  } catch {
    return env
  }
  for (const entry of raw.split("\0")) {
    const eq = entry.indexOf("=")
    if (eq > 0 && !env.has(entry.slice(0, eq))) env.set(entry.slice(0, eq), entry.slice(eq + 1))
  }
  return env
}

/** The host process and every ancestor of it: never a target, whatever they carry or wherever they live. */
export function hostLineage(hostPid = process.pid): Set<number> {
  const lineage = new Set<number>([hostPid, 1])
  let pid = hostPid
  for (let hops = 0; hops < 256; hops++) {
    const parent = readProcessStat(pid)?.ppid
    if (parent === undefined || parent <= 0 || lineage.has(parent)) break
    lineage.add(parent)
    pid = parent
  }
  return lineage
}

const SHELL_SEPARATORS = /[\s;&|()<>]+/

// Where every command's executable lives: "the command's own directory" can never be one of these, or wave 2 would
// take every process started meanwhile (sleep, git, ...).
const SYSTEM_BIN_DIRS = new Set(["/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"])

/**
 * The directories a stalled command "lives in": the directory the call ran in, and the directory of the command's
 * first path-like token (a token with a slash; the token itself when it names a directory).
 */
export function commandDirectories(command: string, cwd: string | undefined): string[] {
  const dirs = new Set<string>()
  if (cwd !== undefined) dirs.add(path.resolve(cwd))
  for (const raw of command.split(SHELL_SEPARATORS)) {
    const token = raw.replace(/^['"]+|['"]+$/g, "")
    if (!token.includes("/") || token.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(token)) continue
    if (!path.isAbsolute(token) && cwd === undefined) break
    const resolved = path.resolve(cwd ?? "/", token)
    dirs.add(isDirectory(resolved) ? resolved : path.dirname(resolved))
    break
  }
  return [...dirs].filter((dir) => !SYSTEM_BIN_DIRS.has(dir))
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory()
  } catch {
    return false
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile()
  } catch {
    return false
  }
}

/**
 * Where a process's command lives: its executable and its script (the first argument that is not an option and
 * names an existing file, as in `node hang.js` or `sh ./scripts/hold.sh`), resolved against the process's cwd.
 */
export function commandPaths(info: Pick<ProcessInfo, "pid" | "cwd" | "cmdline">): string[] {
  const paths = new Set<string>()
  try {
    paths.add(readlinkSync(`/proc/${info.pid}/exe`).replace(/ \(deleted\)$/, ""))
  } catch {
    // Foreign or gone: the command line below still tells.
  }
  const [argv0, ...rest] = info.cmdline
  const resolve = (token: string): string | undefined => (path.isAbsolute(token) ? token : info.cwd !== null ? path.resolve(info.cwd, token) : undefined)
  if (argv0?.includes("/")) {
    const exe = resolve(argv0)
    if (exe) paths.add(exe)
  }
  const script = rest.find((arg) => !arg.startsWith("-"))
  if (script !== undefined) {
    const file = resolve(script)
    if (file !== undefined && isFile(file)) paths.add(file)
  }
  return [...paths]
}

export interface ProcessLocatorOptions {
  /** The host process (default: this one): it and its ancestors are never returned. */
  hostPid?: number
}

/** The /proc locator. Synchronous /proc reads behind the async port: a scan takes a few milliseconds. */
export function createProcessLocator(options: ProcessLocatorOptions = {}): WatchdogLocator {
  const hostPid = options.hostPid ?? process.pid
  return {
    async markedCalls(callIds) {
      const wanted = new Set(callIds)
      const seen = new Set<string>()
      if (wanted.size === 0) return seen
      for (const pid of listPids()) {
        const mark = readEnviron(pid).get(WATCHDOG_MARK_VAR)
        if (mark !== undefined && wanted.has(mark)) seen.add(mark)
        if (seen.size === wanted.size) break
      }
      return seen
    },

    async locate(request) {
      return locateNow(request, hostPid)
    },
  }
}

function locateNow(request: LocateRequest, hostPid: number): LocatedProcess[] {
  const dirs = request.wave === 2 ? new Set(commandDirectories(request.command, request.cwd)) : new Set<string>()
  const table = readProcessTable()
  const protectedPids = hostLineage(hostPid)
  // The host's own children (git, language servers, other tools) are the host's work unless they carry the marker.
  const hostTree = new Set(descendantsOf(hostPid, table).map((info) => info.pid))
  const found: LocatedProcess[] = []
  for (const info of table) {
    // The window first: nothing created before the call is its doing, whatever it carries.
    if (info.startedAt < request.startedAt || protectedPids.has(info.pid) || !isLiveStat(info)) continue
    const env = readEnviron(info.pid)
    const mark = env.get(WATCHDOG_MARK_VAR)
    const marked = mark === request.callId
    if (!marked) {
      if (request.wave === 1) continue
      // Another call's process, or one of the job supervisor's: not this call's to take.
      if (mark !== undefined || env.has(JOB_ID_VAR) || hostTree.has(info.pid)) continue
      if (!commandPaths(info).some((file) => dirs.has(path.dirname(file)))) continue
    }
    found.push({ pid: info.pid, startedAt: info.startedAt, marked, command: info.cmdline.join(" ") || info.comm })
  }
  return found.sort((a, b) => a.pid - b.pid)
}
