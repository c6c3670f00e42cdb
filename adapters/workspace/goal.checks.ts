import { randomBytes } from "node:crypto"
import { readFile, realpath, rm, stat } from "node:fs/promises"
import path from "node:path"
import type { CheckOutcome, GoalCheckRunner } from "../../services/goal/goal.ports"
import { isAlive, killJobTree, readTail, spawnJob } from "../process/index"

// The goal's checks, run by the host itself. A command check runs through the process adapter like any job: under
// the host-aligned shell, done when the shell exits (never on stdio EOF), fenced to this host, its whole tree killed on
// timeout and whatever it left running killed after it; its output goes to a log of which only the tail is read. A
// file check reads a file inside the workspace only: an absolute path, a `..` or a symbolic link that leads out fails.

/** How much of a command's output a check keeps. */
const TAIL_BYTES = 4096
/** The largest file a `--contains` check reads. */
const CONTAINS_MAX_BYTES = 16 * 1024 * 1024
const KILL_GRACE_MS = 1000
/** How long a check waits for its job's shim to leave (it keeps the exit status beside the log) before cleaning up. */
const SHIM_EXIT_WAIT_MS = 3000

export interface GoalCheckRunnerOptions {
  /** The workspace root: commands run there, files are read from it. */
  workspace: string
  /** Where command checks write their output while they run (each log is removed afterwards). */
  logDir: string
}

export function createGoalCheckRunner(options: GoalCheckRunnerOptions): GoalCheckRunner {
  return {
    // Whatever goes wrong fails the check it happened to, saying what; it never stops the other checks.
    run: (check) =>
      (check.kind === "command" ? runCommand(options, check.command, check.timeoutS) : runContains(options.workspace, check.file, check.text)).catch(
        (error: unknown): CheckOutcome => ({
          pass: false,
          summary: `could not run: ${error instanceof Error ? error.message : String(error)}`,
          outputTail: "",
        }),
      ),
  }
}

async function runCommand(options: GoalCheckRunnerOptions, command: string, timeoutS: number): Promise<CheckOutcome> {
  const id = `goalcheck_${randomBytes(6).toString("hex")}`
  // A folder of its own: the log and the exit status the job's shim keeps beside it go together.
  const folder = path.join(options.logDir, id)
  let shimPid: number | undefined
  try {
    let job: Awaited<ReturnType<typeof spawnJob>>
    try {
      job = await spawnJob({ command, cwd: options.workspace, logFile: path.join(folder, "output.log"), marker: id, fenced: true })
    } catch (error) {
      return { pass: false, summary: `could not start: ${error instanceof Error ? error.message : String(error)}`, outputTail: "" }
    }
    shimPid = job.shim?.pid
    let timer: ReturnType<typeof setTimeout> | undefined
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutS * 1000)
    })
    const ended = await Promise.race([job.exited, timedOut]).finally(() => clearTimeout(timer))
    // Timed out, or exited leaving something behind: the check's whole tree goes either way.
    await killJobTree({ pid: job.pid, jobId: id, shim: job.shim }, { graceMs: KILL_GRACE_MS })
    const outputTail = await readTail(job.logFile, TAIL_BYTES).catch(() => "")
    if (ended === "timeout") return { pass: false, summary: `timed out after ${timeoutS} s (process tree killed)`, outputTail }
    if (ended.signal !== null) return { pass: false, summary: `killed by ${ended.signal}`, outputTail }
    return { pass: ended.code === 0, summary: `exit code ${ended.code}`, outputTail }
  } finally {
    await removeWhenShimLeft(folder, shimPid)
  }
}

async function removeWhenShimLeft(folder: string, shimPid: number | undefined): Promise<void> {
  const deadline = Date.now() + SHIM_EXIT_WAIT_MS
  while (shimPid !== undefined && isAlive(shimPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  await rm(folder, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 }).catch(() => undefined)
}

async function runContains(workspace: string, file: string, text: string): Promise<CheckOutcome> {
  const fail = (summary: string): CheckOutcome => ({ pass: false, summary, outputTail: "" })
  if (path.isAbsolute(file)) return fail(`${file} is an absolute path: a check reads workspace-relative files only`)
  const root = await realpath(workspace)
  const target = path.resolve(root, file)
  if (!isInside(root, target)) return fail(`${file} leads out of the workspace`)
  let real: string
  try {
    real = await realpath(target)
  } catch {
    return fail(`${file} is missing`)
  }
  if (!isInside(root, real)) return fail(`${file} resolves to ${real}, outside the workspace`)
  const info = await stat(real)
  if (!info.isFile()) return fail(`${file} is not a file`)
  if (info.size > CONTAINS_MAX_BYTES) return fail(`${file} is larger than ${CONTAINS_MAX_BYTES / 1024 / 1024} MB`)
  const content = await readFile(real, "utf8")
  return content.includes(text)
    ? { pass: true, summary: `${file} contains the text`, outputTail: "" }
    : fail(`${file} does not contain ${JSON.stringify(text)}`)
}

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root + path.sep)
}
