import type { JobHost } from "../../machines/job/job.machine"
import type { ExitReport, JobLogs, JobProcesses, OutputMatcher, RunningProcess, SpawnRequest, Timers } from "../../services/job/job.ports"

// A world for the job supervisor that spawns nothing: the test says when a spawn succeeds or fails, when output
// grows, when the process exits, and which hosts still run. Time is a number the test sets; timers fire when the
// test moves it past them.

/** The text the model's success pattern matches; other output never does. */
export const MATCHING_OUTPUT = "READY"

export class SimulatedClock {
  at = 0
  now = (): number => this.at
}

/** Timers on the simulated clock: each fires once the test moves the clock to (or past) its due time. */
export class SimulatedTimers implements Timers {
  private readonly pending: { due: number; fn: () => void; cancelled: boolean }[] = []
  constructor(private readonly clock: SimulatedClock) {}

  setTimeout(fn: () => void, ms: number) {
    const timer = { due: this.clock.now() + ms, fn, cancelled: false }
    this.pending.push(timer)
    return {
      cancel: () => {
        timer.cancelled = true
      },
    }
  }

  /** Fires every timer due by now, earliest first (timers they arm included). */
  fireDue(): void {
    for (let guard = 0; guard < 100; guard++) {
      const due = this.pending.filter((t) => !t.cancelled && t.due <= this.clock.now()).sort((a, b) => a.due - b.due)[0]
      if (due === undefined) return
      due.cancelled = true
      due.fn()
    }
    throw new Error("simulated timers keep re-arming at the same instant")
  }

  /** A host that dies takes its timers with it. */
  clear(): void {
    for (const timer of this.pending) timer.cancelled = true
  }
}

/** The one job process of a model path, as every host sees it. */
interface WorldProcess {
  pid: number
  startedAt: number
  alive: boolean
  exit?: ExitReport
  resolveExit: (exit: ExitReport) => void
  exited: Promise<ExitReport>
}

export class JobWorld {
  readonly logs = new Map<string, string>()
  readonly liveHosts = new Set<string>()
  readonly kills: number[] = []
  /** Log rotations the hosts ran: one per job started. */
  rotations = 0
  process: WorldProcess | undefined
  spawnRequest: { request: SpawnRequest; resolve: (p: RunningProcess) => void; reject: (e: Error) => void } | undefined
  private readonly views = new Set<FakeJobProcesses>()

  /** The host's view of the world (its watchers die with it). */
  processesFor(host: JobHost): FakeJobProcesses {
    const view = new FakeJobProcesses(this)
    this.views.add(view)
    this.liveHosts.add(hostKey(host))
    return view
  }

  hostDied(host: JobHost, view: FakeJobProcesses): void {
    this.liveHosts.delete(hostKey(host))
    this.views.delete(view)
    view.detach()
  }

  spawned(pid: number, at: number): boolean {
    const pending = this.spawnRequest
    if (pending === undefined) return false
    this.spawnRequest = undefined
    let resolveExit: (exit: ExitReport) => void = () => undefined
    const exited = new Promise<ExitReport>((resolve) => (resolveExit = resolve))
    this.process = { pid, startedAt: at, alive: true, resolveExit, exited }
    this.logs.set(pending.request.logFile, "")
    pending.resolve({ pid, startedAt: at, shim: null, containment: "model world", exited })
    return true
  }

  spawnFailed(error: string): boolean {
    const pending = this.spawnRequest
    if (pending === undefined) return false
    this.spawnRequest = undefined
    pending.reject(new Error(error))
    return true
  }

  output(logFile: string, matched: boolean): void {
    if (this.process === undefined || !this.process.alive) return
    const text = `${this.logs.get(logFile) ?? ""}${matched ? MATCHING_OUTPUT : "noise"}\n`
    this.logs.set(logFile, text)
    for (const view of this.views) view.grew(logFile, text.length)
  }

  exit(exit: ExitReport): void {
    const process = this.process
    if (process === undefined || !process.alive) return
    process.alive = false
    process.exit = exit
    process.resolveExit(exit)
    for (const view of this.views) view.gone(process.pid, exit)
  }

  /** The process ended while no host watched it (and nobody kept its status). */
  vanish(): void {
    if (this.process) this.process.alive = false
  }
}

const hostKey = (host: JobHost) => `${host.pid}.${host.startedAt}.${host.instance}`

class FakeJobProcesses implements JobProcesses {
  private readonly growth = new Map<string, Set<(size: number) => void>>()
  private readonly goneWatchers = new Map<number, Set<(exit: Omit<ExitReport, "at"> | null) => void>>()

  constructor(private readonly world: JobWorld) {}

  detach(): void {
    this.growth.clear()
    this.goneWatchers.clear()
  }

  grew(logFile: string, size: number): void {
    for (const onGrowth of [...(this.growth.get(logFile) ?? [])]) onGrowth(size)
  }

  gone(pid: number, exit: ExitReport): void {
    for (const onGone of [...(this.goneWatchers.get(pid) ?? [])]) onGone({ code: exit.code, signal: exit.signal })
  }

  shellFamily(): string {
    return "bash"
  }

  spawn(request: SpawnRequest): Promise<RunningProcess> {
    return new Promise((resolve, reject) => {
      this.world.spawnRequest = { request, resolve, reject }
    })
  }

  async killTree(job: { pid: number }): Promise<{ survivors: number[] }> {
    this.world.kills.push(job.pid)
    return { survivors: [] }
  }

  killTreeNow(job: { pid: number }): void {
    this.world.kills.push(job.pid)
  }

  isSameProcess(pid: number, startedAt: number): boolean {
    const p = this.world.process
    return p?.alive === true && p.pid === pid && p.startedAt === startedAt
  }

  isHostAlive(host: JobHost): boolean {
    return this.world.liveHosts.has(hostKey(host))
  }

  watchGone(job: { pid: number }, onGone: (exit: Omit<ExitReport, "at"> | null) => void): () => void {
    const set = this.goneWatchers.get(job.pid) ?? new Set()
    this.goneWatchers.set(job.pid, set)
    set.add(onGone)
    return () => void set.delete(onGone)
  }

  /** The world has no shims: a job that ended while no host ran left no status behind. */
  keptExit(): null {
    return null
  }

  createMatcher(source: string): OutputMatcher {
    return { budgetMs: 1_000, feed: async (text) => (text.includes(source) ? "match" : "no-match"), dispose: () => undefined }
  }

  watchGrowth(logFile: string, onGrowth: (size: number) => void): () => void {
    const set = this.growth.get(logFile) ?? new Set()
    this.growth.set(logFile, set)
    set.add(onGrowth)
    return () => void set.delete(onGrowth)
  }

  async sizeOf(logFile: string): Promise<number> {
    return (this.world.logs.get(logFile) ?? "").length
  }

  async readTail(logFile: string, maxBytes: number): Promise<string> {
    return (this.world.logs.get(logFile) ?? "").slice(-maxBytes)
  }

  // A property, not a method: the supervisor hands it on unbound (as the POSIX adapter's closures allow).
  readNew = async (logFile: string, fromOffset: number, maxBytes: number): Promise<{ text: string; nextOffset: number }> => {
    const text = (this.world.logs.get(logFile) ?? "").slice(fromOffset, fromOffset + maxBytes)
    return { text, nextOffset: fromOffset + text.length }
  }

  async readLines(logFile: string, offset: number, limit: number): Promise<{ lines: string[]; total: number; truncated: boolean }> {
    const all = (this.world.logs.get(logFile) ?? "").split("\n").filter((line) => line !== "")
    return { lines: all.slice(offset - 1, offset - 1 + limit), total: all.length, truncated: false }
  }
}

export type { FakeJobProcesses }

/** Logs that live in the world: the one job's log is always there; each rotation (a job started) is counted. */
export function fakeJobLogs(world: JobWorld, logFile: string): JobLogs {
  return {
    pathFor: () => logFile,
    exists: async () => true,
    rotate: async () => {
      world.rotations += 1
    },
  }
}
