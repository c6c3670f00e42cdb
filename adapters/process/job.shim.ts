// The host's side of the job shim (shim.script.ts): starts it, reads what it reports on its stdout, and asks it to kill.
// The job's exit stays bound to the SHELL's exit, which the shim reports the moment it reaps the shell; the shim
// itself lives on while any descendant does.
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { constants } from "node:os"
import type { Readable, Writable } from "node:stream"
import type { JobShim } from "../../machines/job/job.machine"
import { isSameProcessAt } from "./job.hosts"
import { readProcess } from "./proc.table"
import { SHIM_SCRIPT } from "./shim.script"

export interface ShimExit {
  code: number | null
  signal: string | null
  /** Epoch ms of the report. */
  at: number
}

export interface ShimLaunch {
  perl: string
  /** The shell's full argv, the shell's path first. */
  argv: readonly string[]
  cwd: string
  /** The job's environment without the markers (the shim must not carry them: it is no job process). */
  env: Record<string, string>
  /** The markers, set on the shell only. */
  markers: Record<string, string>
  logFd: number
  /** Where the shim keeps the shell's exit status for an adopter. */
  statusFile: string
  /** Fenced: the shim kills the whole subtree when the host dies (its stdin closes). */
  fenced: boolean
}

export type ShimStart =
  | { kind: "started"; shim: JobShim; shellPid: number; exited: Promise<ShimExit>; ref(): void; unref(): void }
  | { kind: "failed"; reason: string }

const SHELL_GONE_POLL_MS = 100

/** Shims this process started and still holds a command pipe to, by shim pid. */
const commandPipes = new Map<number, (line: string) => void>()

/** `<log without .log>.exit`: where a job's shim keeps the shell's exit status. */
export function exitStatusFile(logFile: string): string {
  return `${logFile.endsWith(".log") ? logFile.slice(0, -".log".length) : logFile}.exit`
}

/** The exit status a job's shim kept beside its log (code and signal), or null when there is none (yet). */
export function readExitStatus(logFile: string): { code: number | null; signal: string | null } | null {
  let text: string
  try {
    text = readFileSync(exitStatusFile(logFile), "utf8")
  } catch {
    return null
  }
  const exit = parseExitLine(text, 0)
  return exit === null ? null : { code: exit.code, signal: exit.signal }
}

/** The shim's report line `exit <code|-> <signal number|->`, or null when it is not one. */
export function parseExitLine(line: string, at: number): ShimExit | null {
  const match = /^exit (-|\d+) (-|\d+)$/.exec(line.trim())
  if (!match) return null
  const signalNumber = match[2] === "-" ? null : Number(match[2])
  const name = signalNumber === null ? null : (Object.entries(constants.signals).find(([, n]) => n === signalNumber)?.[0] ?? `signal ${signalNumber}`)
  return { code: match[1] === "-" ? null : Number(match[1]), signal: name, at }
}

/** Hex fields separated by spaces: what the script decodes from FORGE_SHIM_SPEC. */
export function shimSpec(fields: readonly string[]): string {
  return fields.map((field) => Buffer.from(field, "utf8").toString("hex")).join(" ")
}

/** Sends a command to a shim this process started (true), or false when there is no pipe to it. */
export function tellShim(pid: number, line: string): boolean {
  const send = commandPipes.get(pid)
  if (send === undefined) return false
  send(line)
  return true
}

/**
 * Calls `onLine` for every complete line the stream delivers, and `onEnd` once when it ends. A child that could not
 * be spawned may have no stream at all (Bun): that is an end at once.
 */
export function readLines(stream: Readable | null | undefined, onLine: (line: string) => void, onEnd: () => void): void {
  let buffer = ""
  let ended = false
  const end = () => {
    if (ended) return
    ended = true
    onEnd()
  }
  if (!stream) {
    queueMicrotask(end)
    return
  }
  stream.on("data", (data: Buffer | string) => {
    buffer += data.toString()
    for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
      onLine(buffer.slice(0, at))
      buffer = buffer.slice(at + 1)
    }
  })
  stream.on("end", end)
  stream.on("close", end)
  stream.on("error", end)
}

function setRef(handle: unknown, on: boolean): void {
  const target = handle as { ref?: () => void; unref?: () => void } | null | undefined
  const method = on ? target?.ref : target?.unref
  if (typeof method === "function") method.call(target)
}

/** Starts the shim; resolves once it runs the shell, or with the reason it could not. */
export function startShim(launch: ShimLaunch): Promise<ShimStart> {
  const markers = Object.entries(launch.markers).map(([name, value]) => `${name}=${value}`)
  const spec = shimSpec([launch.fenced ? "fenced" : "survive", launch.statusFile, markers.join("\n"), ...launch.argv])
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>
    try {
      child = spawn(launch.perl, ["-e", SHIM_SCRIPT], {
        cwd: launch.cwd,
        env: { ...launch.env, FORGE_SHIM_SPEC: spec },
        // The log on stderr only: the shim gives the shell it as stdout too (see shim.script.ts for why fd 1).
        stdio: ["pipe", "pipe", launch.logFd],
        detached: true,
      })
    } catch (error) {
      resolve({ kind: "failed", reason: `cannot run ${launch.perl}: ${(error as Error).message}` })
      return
    }
    const stdin = child.stdin as Writable | null
    const report = child.stdout as Readable | null
    // A broken pipe only means the shim is gone, which the report's end tells.
    stdin?.on("error", () => undefined)
    // Referenced until the shim has started the shell (the host awaits that); then a job never keeps the host alive.
    const handles = [child, stdin, report]

    let settled = false
    let referenced = false
    let exitSeen = false
    let shellPid = 0
    let shellStartedAt = 0
    let resolveExit: (exit: ShimExit) => void = () => undefined
    const exited = new Promise<ShimExit>((done) => (resolveExit = done))
    const settle = (outcome: ShimStart) => {
      if (settled) return
      settled = true
      for (const handle of handles) setRef(handle, false)
      resolve(outcome)
    }
    const failed = (reason: string) => {
      if (settled) return
      settle({ kind: "failed", reason })
      if (child.pid !== undefined) commandPipes.delete(child.pid)
      child.kill("SIGKILL")
    }

    child.once("error", (error) => failed(`cannot run ${launch.perl}: ${error.message}`))
    readLines(
      report,
      (line) => {
        if (line.startsWith("fail ")) return failed(line.slice("fail ".length))
        const exit = parseExitLine(line, Date.now())
        if (exit !== null) {
          exitSeen = true
          resolveExit(exit)
          return
        }
        const spawned = /^spawned (\d+)$/.exec(line)
        if (spawned && child.pid !== undefined) {
          shellPid = Number(spawned[1])
          shellStartedAt = readProcess(shellPid)?.startedAt ?? Date.now()
          const shim = { pid: child.pid, startedAt: readProcess(child.pid)?.startedAt ?? Date.now() }
          commandPipes.set(child.pid, (command) => {
            if (stdin && !stdin.destroyed) stdin.write(`${command}\n`)
          })
          settle({
            kind: "started",
            shim,
            shellPid,
            exited,
            ref: () => {
              referenced = true
              for (const handle of handles) setRef(handle, true)
            },
            unref: () => {
              referenced = false
              for (const handle of handles) setRef(handle, false)
            },
          })
        }
      },
      () => {
        if (child.pid !== undefined) commandPipes.delete(child.pid)
        failed("the shim ended before it started the job")
        if (exitSeen || shellPid === 0) return
        // The shim was killed (SIGKILL) before the shell ended: its exit status is lost, its end is not.
        const timer = setInterval(() => {
          if (isSameProcessAt(shellPid, shellStartedAt)) return
          clearInterval(timer)
          resolveExit({ code: null, signal: null, at: Date.now() })
        }, SHELL_GONE_POLL_MS)
        if (!referenced) timer.unref?.()
      },
    )
  })
}
