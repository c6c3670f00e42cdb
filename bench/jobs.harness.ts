// The job supervisor as the plugin composes it (createHostJobs: real processes, production kill grace and growth
// polling, job logs in a folder, transitions journaled in the workspace database), pointed at a temp folder, with a
// tap on the process port that records when each job's exit report was delivered. Also the small measuring tools
// the jobs bench shares.
import { rmSync, statSync } from "node:fs"
import path from "node:path"
import type { PluginInput } from "@opencode-ai/plugin"
import { createJobProcesses } from "../adapters/process/job.processes"
import type { ExitReport, JobProcesses } from "../services/job/job.ports"
import type { LifecycleRepository, Logger } from "../services/lifecycle/lifecycle.ports"
import { type ShellArgs, type ShellRequest, toShellRequest } from "../services/job/job.request"
import type { JobSupervisor } from "../services/job/job.service"
import { createHostJobs } from "../src/job/job.lazy"
import { createForgeRuntime } from "../src/runtime"

export interface ExitStamp {
  /** The adapter's exit report (its `at` is epoch ms, taken in the exit handler). */
  report: ExitReport
  /** process.hrtime.bigint() when the exit report was delivered: the same moment, at nanosecond resolution. */
  hr: bigint
}

export interface BenchJobs {
  supervisor: JobSupervisor
  /** Where the job logs go. */
  logDir: string
  /** forge_shell's own argument parsing, with the temp folder as the project directory. */
  request(args: ShellArgs): ShellRequest
  /** Exit stamps by job id, recorded by the tap before the supervisor hears of the exit. */
  exits: Map<string, ExitStamp>
  /** What the plugin logged as warnings or errors. */
  errors: string[]
  /** Job transitions committed to the workspace database so far. */
  journaled(): number
  close(): Promise<void>
}

/** The job id named in a forge_shell result; throws when the result names none. */
export function jobIdOf(result: string): string {
  const id = /^job: (\S+)$/m.exec(result)?.[1]
  if (id === undefined) throw new Error(`forge_shell returned no job id:\n${result.slice(0, 400)}`)
  return id
}

/** Wraps the port so every job's exit report is stamped the moment it is delivered, ahead of the supervisor. */
function tapExits(inner: JobProcesses, exits: Map<string, ExitStamp>): JobProcesses {
  return {
    ...inner,
    async spawn(request) {
      const running = await inner.spawn(request)
      const exited = running.exited.then((report) => {
        exits.set(request.jobId, { report, hr: process.hrtime.bigint() })
        return report
      })
      return { ...running, exited }
    },
  }
}

/** The host client: the bench never lets a session go idle, so a wake (promptAsync) is never due. */
function unreachableClient(): PluginInput["client"] {
  const session = {
    promptAsync: () => {
      throw new Error("the bench client was asked to deliver a wake: no bench session is ever idle")
    },
  }
  return { session } as unknown as PluginInput["client"]
}

/** The workspace database as the jobs see it, counting the journal's commits so closing can wait for the last one. */
function countingRepository(inner: LifecycleRepository): { repository: LifecycleRepository; inFlight: () => number; committed: () => number } {
  let started = 0
  let settled = 0
  const repository: LifecycleRepository = {
    commit(snapshot, transition) {
      started++
      return inner.commit(snapshot, transition).finally(() => void settled++)
    },
    step: (machineId, instanceId, decide) => inner.step(machineId, instanceId, decide),
    changedSince: (seq, machineIds) => inner.changedSince(seq, machineIds),
    dataVersion: () => inner.dataVersion(),
    saveSnapshot: (snapshot) => inner.saveSnapshot(snapshot),
    loadSnapshots: (query) => inner.loadSnapshots(query),
    instanceIds: (machineId) => inner.instanceIds(machineId),
    getSnapshot: (machineId, instanceId) => inner.getSnapshot(machineId, instanceId),
    listTransitions: (filter) => inner.listTransitions(filter),
    pruneTerminal: (machineId, keep) => inner.pruneTerminal(machineId, keep),
    close: () => inner.close(),
  }
  return { repository, inFlight: () => started - settled, committed: () => settled }
}

/**
 * The supervisor as the plugin composes it, over the workspace's real runtime (SQLite in the temp folder), so every
 * job transition is journaled exactly as in the plugin.
 */
export async function createBenchJobs(workspace: string): Promise<BenchJobs> {
  const errors: string[] = []
  const ignore = (): void => undefined
  const log: Logger = { info: ignore, warn: (m) => void errors.push(`warn: ${m}`), error: (m) => void errors.push(`error: ${m}`) }
  const exits = new Map<string, ExitStamp>()
  const logDir = path.join(workspace, "logs")
  const runtime = await createForgeRuntime({ workspace, log })
  const counted = countingRepository(runtime.repository)
  const host = createHostJobs({
    client: unreachableClient(),
    log,
    clock: { now: () => Date.now() },
    processes: tapExits(createJobProcesses(), exits),
    logDir,
    repository: async () => counted.repository,
  })
  return {
    supervisor: host.supervisor,
    logDir,
    request: (args) => toShellRequest(args, { cwd: workspace, survive: "never" }, (cwd) => path.resolve(workspace, cwd)),
    exits,
    errors,
    journaled: counted.committed,
    async close() {
      try {
        await host.supervisor.dispose()
        host.uninstall()
        // The journal writes in the background, one commit after another: a timer that sees none in flight comes
        // after the whole chain, since each next write starts in a microtask of the previous one.
        const until = Date.now() + 10_000
        while (counted.inFlight() > 0 && Date.now() < until) await sleep(20)
      } finally {
        await runtime.close()
      }
    },
  }
}

/** Size of a file in bytes, or -1 when it does not exist. */
export function sizeOrMissing(file: string): number {
  try {
    return statSync(file).size
  } catch {
    return -1
  }
}

export function removeFile(file: string): void {
  rmSync(file, { force: true })
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of no values")
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/** Nearest-rank percentile (p in 0..1) of plain numbers. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error("percentile of no values")
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length))) - 1] as number
}

export const MiB = 1024 * 1024
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
export const elapsedMs = (start: bigint, end: bigint = process.hrtime.bigint()): number => Number(end - start) / 1e6

/**
 * Samples the host's resident set size every `everyMs` while `body` runs: the peak above the reading taken just
 * before it started. The timer keeps sampling as long as the event loop turns, which is exactly what a host that
 * buffers output in memory keeps doing.
 */
export async function peakRssIncrease<T>(body: () => Promise<T>, everyMs = 10): Promise<{ value: T; before: number; peak: number; samples: number }> {
  const before = process.memoryUsage().rss
  let peak = before
  let samples = 0
  const sample = (): void => {
    const rss = process.memoryUsage().rss
    samples++
    if (rss > peak) peak = rss
  }
  const timer = setInterval(sample, everyMs)
  try {
    const value = await body()
    sample()
    return { value, before, peak: peak - before, samples }
  } finally {
    clearInterval(timer)
  }
}
