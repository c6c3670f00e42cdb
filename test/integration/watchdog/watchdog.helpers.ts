// Real processes for the watchdog's integration tests: started with or without the call marker, tracked so that no
// test leaves one behind.
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { descendantsOf, listPids, readProcessStats } from "../../../adapters/process/proc.table"
import { WATCHDOG_MARK_VAR } from "../../../services/watchdog/watchdog.ports"
import { sleep } from "../process/process.helpers"

export { makeTempDir, sleep } from "../process/process.helpers"

/** Every call id of this test process starts so: the janitor finds the marked processes by it. */
const CALL_PREFIX = `call_it_${process.pid}_`

function carriesTestMarker(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8").includes(`\0${WATCHDOG_MARK_VAR}=${CALL_PREFIX}`)
  } catch {
    return false
  }
}

/**
 * The processes a test started: `cleanup()` SIGKILLs them, everything below them, and every process carrying one
 * of this test process's call markers, so no test leaves a process behind.
 */
export const janitor = {
  pids: new Set<number>(),
  add(...more: number[]) {
    for (const pid of more) this.pids.add(pid)
  },
  cleanup() {
    const table = readProcessStats()
    const doomed = new Set(this.pids)
    for (const pid of listPids()) if (carriesTestMarker(pid)) doomed.add(pid)
    for (const pid of [...doomed]) for (const child of descendantsOf(pid, table)) doomed.add(child.pid)
    for (const pid of doomed) {
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        // Already gone.
      }
    }
    this.pids.clear()
  },
}

let counter = 0
/** A call id unique to this test process, so parallel test files never see each other's markers. */
export function newCallId(): string {
  counter += 1
  return `${CALL_PREFIX}${counter}`
}

/** Runs `script` under sh, optionally marked as `callId`'s process; stdio ignored unless `pipes`. */
export function startShell(script: string, options: { callId?: string; cwd?: string; pipes?: boolean; env?: Record<string, string> } = {}): ChildProcess {
  const env: Record<string, string | undefined> = { ...process.env, ...options.env }
  delete env[WATCHDOG_MARK_VAR]
  if (options.callId !== undefined) env[WATCHDOG_MARK_VAR] = options.callId
  const child = spawn("sh", ["-c", script], {
    cwd: options.cwd,
    env,
    detached: true,
    stdio: options.pipes ? ["ignore", "pipe", "pipe"] : "ignore",
  })
  if (child.pid !== undefined) janitor.add(child.pid)
  return child
}

/** Waits until `find` yields at least `count` pids, records them for cleanup, and returns them. */
export async function settle(find: () => number[] | Promise<number[]>, count: number, timeoutMs = 3000): Promise<number[]> {
  let pids: number[] = []
  const deadline = Date.now() + timeoutMs
  for (;;) {
    pids = await find()
    if (pids.length >= count || Date.now() >= deadline) break
    await sleep(20)
  }
  janitor.add(...pids)
  return pids
}
