// Starting a job: the host-aligned shell runs the command as the leader of its own process group, its stdout and
// stderr ARE the log file (the host holds no pipe that a detached grandchild could keep open), and completion is
// the shell's exit, never stdio EOF. Where perl can make it a child subreaper, the shell runs under the job's shim
// (job.shim.ts), which contains every descendant whatever it does to its environment; else the shell is the host's
// own child and the environment markers are the only containment.
import { spawn } from "node:child_process"
import { accessSync, closeSync, constants, mkdirSync, openSync, statSync } from "node:fs"
import path from "node:path"
import * as z from "zod"
import type { JobShim } from "../../machines/job/job.machine"
import { type ContainmentChoice, DEFAULT_PERL, decideContainment, markerOnly } from "./job.containment"
import { startFence } from "./job.fence"
import { assertMarkerValue, type EnvironmentOverrides, JOB_HOST_VAR, JOB_ID_VAR, withoutMarkers } from "./job.markers"
import { exitStatusFile, startShim } from "./job.shim"
import { type ResolvedShell, resolveShell } from "./shell.resolver"

export interface SpawnJobOptions {
  /** The command line, run by the shell as `<shell> -c <command>`. */
  command: string
  /** Absolute working directory; it must exist. */
  cwd: string
  /** Where stdout and stderr go (appended; the folder is created). */
  logFile: string
  /** The job id, stamped on every process of the job as `FORGE_JOB_ID=<marker>`. */
  marker: string
  /** Variables set (or, with `undefined`, removed) on top of the host's environment. */
  env?: EnvironmentOverrides
  /** true: the job dies with the host (it carries the host's fence token). false: a survive job. */
  fenced: boolean
  /** The interpreter; the host-aligned shell by default. */
  shell?: ResolvedShell
  /** `auto` (default): the subreaper shim where perl can set it up; `markers`: the environment markers only. */
  containment?: ContainmentChoice
  /** The perl that runs the shim ("perl" on PATH by default). */
  perl?: string
}

export interface JobExit {
  /** Exit status, or null when a signal ended the job. */
  code: number | null
  /** The signal that ended the job (e.g. "SIGTERM"), or null. */
  signal: string | null
  /** Epoch ms of the exit event. */
  at: number
}

export interface SpawnedJob {
  pid: number
  /** The job id (the FORGE_JOB_ID marker). */
  jobId: string
  command: string
  cwd: string
  logFile: string
  fenced: boolean
  /** The subreaper shim the shell runs under, or null when the markers are the only containment. */
  shim: JobShim | null
  /** How the job is contained: "subreaper (perl prctl)" or "environment marker only (<reason>)". */
  containment: string
  /** Epoch ms, taken right before the spawn. */
  startedAt: number
  /** Resolves as soon as the job's shell exits, whatever its descendants still hold open. */
  exited: Promise<JobExit>
  /**
   * Jobs start unreferenced: they never keep the host's event loop alive, so under Node awaiting `exited` alone
   * does not either. A host with nothing else to keep it running (a CLI waiting for a job) calls `ref()`.
   */
  ref(): void
  unref(): void
}

const optionsSchema = z.object({
  command: z.string().min(1, "command is empty"),
  cwd: z.string().refine((dir) => path.isAbsolute(dir), "cwd must be an absolute path"),
  logFile: z.string().refine((file) => path.isAbsolute(file), "logFile must be an absolute path"),
  marker: z.string(),
  env: z.record(z.string(), z.string().optional()).optional(),
  fenced: z.boolean(),
})

function describe(options: Pick<SpawnJobOptions, "command" | "cwd">): string {
  return `command ${JSON.stringify(options.command)} in ${JSON.stringify(options.cwd)}`
}

function checkOptions(options: SpawnJobOptions): void {
  const parsed = optionsSchema.safeParse(options)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "options"}: ${issue.message}`)
    throw new Error(`cannot spawn ${describe(options)}: ${problems.join("; ")}`)
  }
  assertMarkerValue("job id", options.marker)
  let isDirectory = false
  try {
    isDirectory = statSync(options.cwd).isDirectory()
  } catch {
    throw new Error(`cannot spawn ${describe(options)}: the working directory does not exist`)
  }
  if (!isDirectory) throw new Error(`cannot spawn ${describe(options)}: the working directory is not a directory`)
}

function jobEnvironment(options: SpawnJobOptions): Record<string, string> {
  // An override of `undefined` removes the variable: withoutMarkers drops undefined values.
  return withoutMarkers({ ...process.env, ...options.env })
}

function jobMarkers(options: SpawnJobOptions, hostToken: string | undefined): Record<string, string> {
  return hostToken === undefined ? { [JOB_ID_VAR]: options.marker } : { [JOB_ID_VAR]: options.marker, [JOB_HOST_VAR]: hostToken }
}

function openLog(options: SpawnJobOptions): number {
  try {
    mkdirSync(path.dirname(options.logFile), { recursive: true })
    return openSync(options.logFile, "a")
  } catch (error) {
    throw new Error(`cannot spawn ${describe(options)}: cannot open its log ${options.logFile}: ${(error as Error).message}`)
  }
}

/** Starts a job; rejects with an error naming the command and cwd when it cannot start. */
export async function spawnJob(options: SpawnJobOptions): Promise<SpawnedJob> {
  checkOptions(options)
  const shell = options.shell ?? resolveShell()
  try {
    accessSync(shell.path, constants.X_OK)
  } catch {
    throw new Error(`cannot spawn ${describe(options)}: the shell ${shell.path} does not exist or is not executable`)
  }
  let hostToken: string | undefined
  if (options.fenced) {
    const fence = startFence()
    await fence.ready
    hostToken = fence.token
  }
  const perl = options.perl ?? DEFAULT_PERL
  let containment = await decideContainment(options.containment, perl)

  const fd = openLog(options)
  try {
    const startedAt = Date.now()
    if (containment.shim) {
      const started = await startShim({
        perl,
        argv: [shell.path, ...shell.argv(options.command)],
        cwd: options.cwd,
        env: jobEnvironment(options),
        markers: jobMarkers(options, hostToken),
        logFd: fd,
        statusFile: exitStatusFile(options.logFile),
        fenced: options.fenced,
      })
      if (started.kind === "started") {
        return {
          ...jobFields(options),
          pid: started.shellPid,
          shim: started.shim,
          containment: containment.label,
          startedAt,
          exited: started.exited,
          ref: started.ref,
          unref: started.unref,
        }
      }
      // This job runs as a marker-contained one: the host decided once, but this shim failed on its own.
      containment = markerOnly(started.reason)
    }
    return await spawnDirect(options, shell, fd, jobMarkers(options, hostToken), containment.label)
  } finally {
    // The child has its own copy of the descriptor now: the host keeps nothing open. A failed close must not turn a
    // job that started into a spawn failure (the command would run, and the model would be told it did not).
    try {
      closeSync(fd)
    } catch {
      // Already closed: nothing is left open.
    }
  }
}

function jobFields(options: SpawnJobOptions) {
  return { jobId: options.marker, command: options.command, cwd: options.cwd, logFile: options.logFile, fenced: options.fenced }
}

/** The fallback: the shell is the host's own (detached) child. */
async function spawnDirect(
  options: SpawnJobOptions,
  shell: ResolvedShell,
  fd: number,
  markers: Record<string, string>,
  containment: string,
): Promise<SpawnedJob> {
  let child: ReturnType<typeof spawn>
  let startedAt: number
  try {
    startedAt = Date.now()
    child = spawn(shell.path, shell.argv(options.command), {
      cwd: options.cwd,
      env: { ...jobEnvironment(options), ...markers },
      stdio: ["ignore", fd, fd],
      detached: true,
    })
  } catch (error) {
    throw new Error(`cannot spawn ${describe(options)} with ${shell.path}: ${(error as Error).message}`)
  }
  child.unref()

  const exited = new Promise<JobExit>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal, at: Date.now() }))
  })
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", () => resolve())
    child.once("error", (error) => reject(new Error(`cannot spawn ${describe(options)} with ${shell.path}: ${error.message}`)))
  })
  return {
    ...jobFields(options),
    pid: child.pid as number,
    shim: null,
    containment,
    startedAt,
    exited,
    ref: () => void child.ref(),
    unref: () => void child.unref(),
  }
}
