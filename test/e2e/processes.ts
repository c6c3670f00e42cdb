// Child processes of the harness. Each opencode process gets its own process group, and stopping it also
// signals every descendant found in /proc beforehand (opencode starts bash tool commands in groups of their own,
// and they would outlive it); stop = SIGTERM, then SIGKILL after a grace period. A restart stops only opencode, as
// a real one does: what outlives it on purpose keeps running as a stray until the scenario ends. A process started
// on the harness's behalf by another one (the TUI in a tmux pane) is adopted and stopped the same way. Processes
// still alive when the harness itself exits are killed from an exit handler.
import { spawn, type ChildProcess } from "node:child_process"
import fs from "node:fs"
import net from "node:net"

const live = new Set<number>()
/** Descendants left running by `stopProcess`: killed by `killStrays` (and by the exit handler). */
const strays = new Set<number>()
let exitHookInstalled = false

/** Every descendant of `root` (Linux /proc; empty elsewhere). Read before signalling: orphans get reparented. */
export function descendants(root: number): number[] {
  if (process.platform !== "linux") return []
  const children = new Map<number, number[]>()
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
    } catch {
      continue
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so parse after the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
    const list = children.get(ppid) ?? []
    list.push(Number(entry))
    children.set(ppid, list)
  }
  const out: number[] = []
  const queue = [root]
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      out.push(child)
      queue.push(child)
    }
  }
  return out
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  // A zombie is gone for every purpose here: it only waits for a parent that is not this process to reap it.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return process.platform !== "linux"
  }
}

function killPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal)
  } catch {
    // already gone
  }
}

function killTree(pid: number, tree: readonly number[], signal: NodeJS.Signals): void {
  killGroup(pid, signal)
  for (const p of tree) killPid(p, signal)
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    try {
      process.kill(pid, signal)
    } catch {
      // already gone
    }
  }
}

/** SIGKILLs every process group still running; synchronous, so it also works from an exit handler. */
export function killAll(): void {
  for (const pid of live) killTree(pid, descendants(pid), "SIGKILL")
  live.clear()
  killStrays()
}

/** SIGKILLs what earlier `stopProcess` calls left running, with everything below it. */
export function killStrays(): void {
  for (const pid of strays) {
    for (const child of descendants(pid)) killPid(child, "SIGKILL")
    killGroup(pid, "SIGKILL")
  }
  strays.clear()
}

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on("exit", killAll)
}

export interface Spawned {
  child: ChildProcess
  stdout(): string
  stderr(): string
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>
  /** SIGTERM the group, SIGKILL after `graceMs`; resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>
  /**
   * Stops the process the way a host restart does: SIGTERM its group, SIGKILL it after `graceMs`. Descendants in
   * groups of their own that outlive it are left running (as strays, see `killStrays`).
   */
  stopProcess(graceMs?: number): Promise<void>
}

export function spawnTracked(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; onStdout?: (chunk: string) => void; onStderr?: (chunk: string) => void },
): Spawned {
  installExitHook()
  // stdin is ignored: `opencode run` reads a non-TTY stdin to the end and would block on an open pipe.
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"], detached: true })
  let out = ""
  let err = ""
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    out += d
    options.onStdout?.(d)
  })
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    err += d
    options.onStderr?.(d)
  })
  const pid = child.pid
  if (pid !== undefined) live.add(pid)
  let done = false
  const exited = new Promise<number | null>((resolve) => {
    const finish = (code: number | null) => {
      if (done) return
      done = true
      if (pid !== undefined) live.delete(pid)
      resolve(code)
    }
    child.on("error", (e) => {
      err += `\n[spawn error] ${e.message}\n`
      finish(127)
    })
    child.on("close", (code) => finish(code))
  })
  const stop = async (graceMs = 3_000): Promise<void> => {
    if (done || pid === undefined) return void (await exited)
    const tree = descendants(pid)
    killTree(pid, tree, "SIGTERM")
    const timer = setTimeout(() => killTree(pid, tree, "SIGKILL"), graceMs)
    await exited
    clearTimeout(timer)
    // Descendants that ignored SIGTERM must not outlive their opencode.
    killTree(pid, tree, "SIGKILL")
  }
  const stopProcess = async (graceMs = 3_000): Promise<void> => {
    if (done || pid === undefined) return void (await exited)
    const tree = descendants(pid)
    killGroup(pid, "SIGTERM")
    const timer = setTimeout(() => killGroup(pid, "SIGKILL"), graceMs)
    await exited
    clearTimeout(timer)
    for (const p of tree) if (isRunning(p)) strays.add(p)
  }
  return { child, stdout: () => out, stderr: () => err, exited, stop, stopProcess }
}

/** A process this harness did not spawn itself (started by tmux): killed by the exit handler like a spawned one. */
export interface Adopted {
  readonly pid: number
  /**
   * Runs `first` (e.g. ending the tmux server, which hangs the process up), then SIGTERMs its group and every
   * descendant it had before, SIGKILLs them after `graceMs`; resolves once the process is gone.
   */
  stop(graceMs?: number, first?: () => Promise<void>): Promise<void>
}

export function adoptProcess(pid: number): Adopted {
  installExitHook()
  live.add(pid)
  return {
    pid,
    stop: async (graceMs = 3_000, first) => {
      // Read before `first`: what it makes exit gets its children reparented, out of reach of descendants().
      const tree = descendants(pid)
      await first?.()
      killTree(pid, tree, "SIGTERM")
      for (const deadline = Date.now() + graceMs; isRunning(pid) && Date.now() < deadline; ) await sleep(50)
      // Descendants that ignored SIGTERM must not outlive it, nor it its grace period.
      if (isRunning(pid)) killTree(pid, tree, "SIGKILL")
      else for (const p of tree) killPid(p, "SIGKILL")
      live.delete(pid)
    },
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.on("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo
      srv.close(() => resolve(port))
    })
  })
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Rejects with `message` after `ms` unless `promise` settles first; the timer is cleared either way. */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
