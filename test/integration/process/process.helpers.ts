// Shared pieces of the process adapter's integration tests: temp folders, polling, pid bookkeeping so that no test
// leaves a process behind, and the stand-in host process.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { isAlive } from "../../../adapters/process/index"

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
export const jobHostScript = path.join(repoRoot, "test/fixtures/process/job-host.ts")

export function makeTempDir(): { dir: string; remove: () => Promise<void> } {
  const dir = mkdtempSync(path.join(tmpdir(), "forge-process-"))
  return { dir, remove: () => removeWhenQuiet(dir) }
}

/**
 * Removes `dir`, trying again for up to 10 s: a killed job's shim outlives its shell long enough to write the exit
 * status into the folder, and on a loaded machine that can come after rmSync's own retries.
 */
async function removeWhenQuiet(dir: string): Promise<void> {
  const deadline = Date.now() + 10_000
  for (;;) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 20 })
      return
    } catch (error) {
      if (Date.now() >= deadline) throw error
      await sleep(100)
    }
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls `check` until it returns true or `timeoutMs` passed; returns the last answer. */
export async function waitFor(check: () => boolean, timeoutMs: number, everyMs = 20): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (check()) return true
    if (Date.now() >= deadline) return false
    await sleep(everyMs)
  }
}

/** Pids a test started; `cleanup()` SIGKILLs whatever of them is still alive. */
export function pidJanitor() {
  const pids = new Set<number>()
  return {
    add(...more: number[]) {
      for (const pid of more) pids.add(pid)
    },
    alive(): number[] {
      return [...pids].filter(isAlive)
    },
    cleanup() {
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL")
        } catch {
          // Already gone.
        }
      }
      pids.clear()
    },
  }
}

export interface HostProcess {
  child: ChildProcess
  /** The JSON line the host printed once its jobs were running. */
  report: Record<string, unknown>
  /** Resolves with the host's exit status and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  output(): string
}

/** How to run a TypeScript file: Node with tsx by default, or another runtime (Bun) that runs it directly. */
export interface ScriptRuntime {
  command: string
  args: string[]
  env?: Record<string, string>
}

export const nodeWithTsx: ScriptRuntime = { command: process.execPath, args: ["--import", "tsx"] }

/** Starts test/fixtures/process/job-host.ts in `mode` (with the mode's further arguments) and waits for its report line. */
export async function startHost(mode: string, logDir: string, runtime: ScriptRuntime = nodeWithTsx, args: readonly string[] = []): Promise<HostProcess> {
  const child = spawn(runtime.command, [...runtime.args, jobHostScript, mode, logDir, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...runtime.env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let stdout = ""
  let stderr = ""
  child.stdout?.on("data", (data: Buffer) => (stdout += data.toString()))
  child.stderr?.on("data", (data: Buffer) => (stderr += data.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  )
  const output = () => `stdout:\n${stdout}\nstderr:\n${stderr}`
  const reported = await waitFor(() => stdout.includes("\n") || child.exitCode !== null, 20_000)
  const line = stdout.split("\n")[0] ?? ""
  if (!reported || !line.startsWith("{")) {
    child.kill("SIGKILL")
    // What it wrote before it ended may still be on its way through the pipes.
    const ended = await Promise.race([exited, sleep(2000).then(() => undefined)])
    throw new Error(`the job host (${mode}) did not report its jobs (ended: ${JSON.stringify(ended)})\n${output()}`)
  }
  return { child, report: JSON.parse(line) as Record<string, unknown>, exited, output }
}

export function pidList(value: unknown): number[] {
  if (!Array.isArray(value) || value.some((pid) => typeof pid !== "number")) {
    throw new Error(`expected a list of pids, got ${JSON.stringify(value)}`)
  }
  return value as number[]
}
