import { type DriverFacts, soleDriver } from "../../machines/driver.claim"
import { MAX_SURVIVORS, nextDeadline } from "../../machines/job/job.gates"
import { type JobContext, type JobEvent, type JobHost, type JobMachine, jobMachine } from "../../machines/job/job.machine"
import { explainJobRefusal } from "../../machines/job/job.refusals"
import { stateToString } from "../../machines/state.text"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { LifecycleRepository, SnapshotRecord } from "../lifecycle/lifecycle.ports"
import { KILL_GRACE_MS } from "./job.implementations"
import { defineJobLifecycle } from "./job.lifecycle"
import type { JobLedgerEntry } from "./job.ledger"
import { isSameHost } from "./job.stores"
import { type LiveJob, liveSurvivorsOf, newLiveJob, quiesce, releaseGrowthWaiters, waitForGrowth } from "./live.job"
import { scanJobOutput } from "./output.scan"
import type { RunningProcess } from "./job.ports"
import { formatJobResult, formatLogPage, killReply, listRow } from "./job.report"
import { type ShellRequest, jobInputOf, spawnRequestOf } from "./job.request"
import { type JobRestoreOutcome, carryOutFate, drivenByHost, isRunningElsewhere, restoredFateOf, restoredJobEvent } from "./job.restore"
import type { JobSupervisorDeps } from "./job.supervisor.deps"
import { JOB_CLAIMS } from "./job.claims"
import { ranAnswer } from "./job.ran"
import { JobWakes } from "./job.wakes"
import { findJob, pageableLog } from "./job.lookup"

const POLL_CAP_MS = 30_000
const DRAIN_BYTES = 64 * 1024

// Runs forge_shell jobs: one job machine per job decides when the caller stops waiting and whether a completion
// still owes a wake; this class only feeds it what happened (spawn, output, ticks at deadlines, exit) and carries
// out what it decided.

export class JobSupervisor {
  /** The live handles (latest snapshot, watchers) of the jobs the registry lists. */
  private readonly jobs = new Map<string, LiveJob>()
  private readonly wakes: JobWakes
  private readonly lifecycle: Lifecycle<JobMachine>
  /** Restores run one after another, each on the jobs the one before left (start-up's and the driver watch's). */
  private restoring: Promise<unknown> = Promise.resolve()
  /** Records that no longer fit the job machine: reported by the restore that found them, then left as they are. */
  private readonly unfit = new Set<string>()

  constructor(private readonly deps: JobSupervisorDeps) {
    this.wakes = new JobWakes({
      wake: deps.wake,
      sessionIsIdle: deps.sessionIsIdle,
      readTail: (file, bytes) => deps.processes.readTail(file, bytes),
      log: deps.log,
    })
    this.lifecycle = defineJobLifecycle(deps.lifecycles, {
      processes: deps.processes,
      clock: deps.clock,
      killed: (jobId, outcome) => {
        const job = this.jobs.get(jobId)
        if (job !== undefined) job.killAfterMatch = outcome
      },
      wake: (jobId) => {
        const job = this.jobs.get(jobId)
        if (job !== undefined) void this.deliverWake(job)
      },
    })
  }

  /** forge_shell: starts a job (its machine's birth gate may refuse it) and waits for the first completion condition, unless in the background. */
  async run(sessionId: string, request: ShellRequest): Promise<string> {
    const birth = { liveSurvivors: liveSurvivorsOf(this.jobs.values()), maxSurvivors: this.deps.maxSurvivors ?? MAX_SURVIVORS }
    const jobId = this.deps.newJobId()
    const logFile = this.deps.logs.pathFor(jobId)
    const input = jobInputOf(request, { jobId, sessionId, logFile, host: this.deps.host, birth })
    // First the machine's birth gate (pure): its refusal is thrown before a matcher, a registry entry, a log or a process.
    this.lifecycle.birth(input)
    const pattern = request.successPattern
    const compiled = pattern === null ? undefined : { matcher: this.deps.processes.createMatcher(pattern.source, pattern.flags), text: pattern.text }
    const job = newLiveJob(this.lifecycle.start(jobId, input), compiled)
    this.deps.registry.register({ jobId, owner: sessionId, survive: request.survive, registeredAt: this.deps.clock.now() })
    this.jobs.set(jobId, job)
    this.watch(jobId, job)
    await this.deps.logs.rotate(new Set(this.jobs.keys())).catch((error: unknown) => this.deps.log.warn(`job log rotation failed: ${String(error)}`))
    let spawned: RunningProcess
    try {
      spawned = await this.deps.processes.spawn(spawnRequestOf(jobId, request, logFile))
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      // Final: the job leaves with its machine (see watch).
      this.feed(job, { type: "job.spawnFailed", error: message, at: this.deps.clock.now() })
      throw new Error(`forge_shell: ${message}`)
    }
    this.feed(job, { type: "job.spawned", pid: spawned.pid, at: spawned.startedAt, shim: spawned.shim ?? null })
    job.stopWatch = this.deps.processes.watchGrowth(logFile, (size) => this.onGrowth(job, size))
    this.armTimer(job)
    spawned.exited.then(async (exit) => {
      job.exited = true
      // Output seen before the exit is accounted for first, so the exit is the last word.
      await job.growth
      // A job already killed or cleared has ended its lifecycle: its exit is no news.
      this.feed(job, { type: "job.exit", code: exit.code, signal: exit.signal, at: exit.at })
      releaseGrowthWaiters(job)
    })
    await this.released(job)
    return ranAnswer(job, this.deps.processes)
  }

  /**
   * Start-up: the jobs a dead host left unfinished, each claimed first (of processes starting together, one takes it):
   * a survive job still running or whose end its shim kept is adopted, a finished one still owed is taken over, and
   * any other live one is ledgered as an orphan (killed when it still runs: it escaped its fence).
   */
  restore(repository: LifecycleRepository): Promise<JobRestoreOutcome> {
    const run = this.restoring.then(() => this.restoreOnce(repository))
    this.restoring = run.catch(() => undefined)
    return run
  }

  /**
   * The driver watch's look: jobs whose host ended while this process runs (another opencode on the workspace exited)
   * are taken up as at start-up. The live records are read first, so while every job runs here or under a live host
   * the look costs one read. Undefined when there was nothing to take up.
   */
  async takeOverLeft(repository: LifecycleRepository): Promise<JobRestoreOutcome | undefined> {
    const records = await repository.loadSnapshots({ machineId: jobMachine.id, includeTerminal: false })
    const handled = (record: SnapshotRecord) =>
      this.jobs.has(record.instanceId) || this.unfit.has(record.instanceId) || isRunningElsewhere(record, this.isOtherHostAlive)
    if (records.every(handled)) return undefined
    return this.restore(repository)
  }

  private readonly isOtherHostAlive = (host: JobHost) => !isSameHost(host, this.deps.host) && this.deps.processes.isHostAlive(host)

  private async restoreOnce(repository: LifecycleRepository): Promise<JobRestoreOutcome> {
    const outcome: JobRestoreOutcome = { adopted: [], takenOver: [], orphaned: [], elsewhere: [], problems: [] }
    const isAlive = this.isOtherHostAlive
    const taken: LiveJob[] = []
    outcome.problems.push(...(await this.deps.registry.takeOver(isAlive)))
    const onDamaged = (damage: { instanceId: string; problem: string }) =>
      void outcome.problems.push(`job ${damage.instanceId}: ${damage.problem}; left as it was`)
    for (const record of await repository.loadSnapshots({ machineId: jobMachine.id, includeTerminal: false, onDamaged })) {
      const jobId = record.instanceId
      if (this.jobs.has(jobId)) continue
      const restored = this.lifecycle.restore(record)
      if (restored.kind === "unfit") {
        // Said once: the driver watch's looks leave it alone from now on.
        this.unfit.add(jobId)
        outcome.problems.push(`${restored.problem}; left as it was`)
        continue
      }
      const { context } = restored.snapshot
      // The dead host's registry, taken over above, knows the owner after a handoff; else it is the starting session.
      if (this.deps.registry.ownerOf(jobId) === undefined) {
        this.deps.registry.register({ jobId, owner: context.sessionId, survive: context.survive, registeredAt: this.deps.clock.now() })
      }
      const job = newLiveJob(restored.snapshot)
      this.watch(jobId, job)
      const now = this.deps.clock.now()
      const decided = restoredFateOf(job.snapshot, this.deps.processes)
      // A job's host drives it while it lives (another opencode process on this workspace, or another plugin instance
      // of this one): the machine's driver gate leaves it there. Of the processes taking a dead host's job over, the
      // one that takes its claim, in one write transaction, adopts it.
      const hostAlive = isAlive(context.host)
      const eventFor = (claim: DriverFacts) => restoredJobEvent(decided.fate, now, this.deps.host, hostAlive ? drivenByHost(claim, context.host) : claim)
      if (!(await this.claim(job, eventFor))) {
        outcome.elsewhere.push(jobId)
        continue
      }
      // Listed (and so polled or killed) only once it is this process's: a restore that loses the claim never showed it.
      if (job.snapshot.status !== "done") this.jobs.set(jobId, job)
      taken.push(job)
      await carryOutFate(job, decided, outcome, {
        processes: this.deps.processes,
        clock: this.deps.clock,
        feed: (event) => this.feed(job, event),
        onGrowth: (size) => this.onGrowth(job, size),
        note: (kind, message) => this.note(kind, context, message),
      })
    }
    // Jobs another process runs (or took over first) stay out of this registry, and are not marked consumed here.
    for (const jobId of outcome.elsewhere) this.deps.registry.drop(jobId)
    await this.deps.registry.releaseTakenOver()
    // Registrations taken over whose job already ended: their results count as delivered.
    for (const { jobId } of this.deps.registry.registrations()) if (!this.jobs.has(jobId)) this.deps.registry.end(jobId)
    await this.lifecycle.prune()
    // Completions an earlier host could not deliver: their sessions may be idle already, with no event to come.
    for (const job of taken) if (job.snapshot.hasTag("wake-pending")) void this.deliverWake(job)
    return outcome
  }

  /** forge_jobs list: the session's jobs (all jobs when no session is given). */
  list(sessionId?: string): string {
    const rows = [...this.jobs.values()]
      .filter((j) => sessionId === undefined || this.ownerOf(j) === sessionId)
      .map((j) => listRow(j.snapshot.context, stateToString(j.snapshot.value)))
    return rows.length === 0 ? "no jobs" : rows.join("\n")
  }

  /** forge_jobs poll: waits (bounded) for new output or the end, and drains the output since the last read. */
  async poll(jobId: string, waitMs = 0): Promise<string> {
    const job = findJob(jobId, this.jobs, this.deps.registry)
    if (typeof job === "string") return job
    const deadline = this.deps.clock.now() + Math.min(waitMs, POLL_CAP_MS)
    // A growth event may be about output the caller already holds (read after the event's size): wait on until news.
    while (waitMs > 0 && job.snapshot.hasTag("alive") && (await this.deps.processes.sizeOf(job.snapshot.context.logFile)) <= job.readOffset) {
      const left = deadline - this.deps.clock.now()
      if (left <= 0) break
      await waitForGrowth(job, this.deps.timers, left)
    }
    const { context } = job.snapshot
    const drained = await this.deps.processes.readNew(context.logFile, job.readOffset, DRAIN_BYTES)
    job.readOffset = drained.nextOffset
    const alive = job.snapshot.hasTag("alive")
    // A poll that sees the end delivers the final status itself: the queued wake is dropped, the entry cleared.
    this.feed(job, { type: "job.poll" })
    return formatJobResult(job.snapshot.context, alive, drained.text)
  }

  /** forge_jobs log: line paging over the job's log — also of a job whose result was delivered, while its log exists. */
  async logLines(jobId: string, offset = 1, limit = 200): Promise<string> {
    const logFile = await pageableLog(jobId, this.jobs, this.deps.registry, this.deps.logs)
    if (typeof logFile !== "string") return logFile.refusal
    return formatLogPage(await this.deps.processes.readLines(logFile, offset, limit), offset)
  }

  /** forge_jobs kill: the whole tree, verified. */
  kill(jobId: string): Promise<string> {
    return this.killWith(jobId, { graceMs: KILL_GRACE_MS })
  }

  /** Kills with the given grace, or the adapter's full graceful pass when none is given. */
  private async killWith(jobId: string, grace?: { graceMs: number }): Promise<string> {
    const job = findJob(jobId, this.jobs, this.deps.registry)
    if (typeof job === "string") return job
    const before = job.snapshot
    const { context } = before
    const kill = { type: "job.kill", at: this.deps.clock.now() } as const
    if (!this.lifecycle.can(jobId, kill)) return explainJobRefusal(before, kill)
    if (context.pid === null) return `job ${jobId} has no process to kill.`
    // Decided first, carried out second: the exit the kill causes must not read as an unread completion.
    this.feed(job, kill)
    const { survivors } = await this.deps.processes.killTree({ pid: context.pid, jobId, shim: context.shim }, grace)
    if (survivors.length > 0) this.note("kill-survivors", context, `${survivors.length} process(es) survived the kill: ${survivors.join(", ")}`)
    return killReply(context, before.hasTag("alive"), survivors)
  }

  /** forge_jobs clear: drops a finished entry. */
  clear(jobId: string): string {
    const job = findJob(jobId, this.jobs, this.deps.registry)
    if (typeof job === "string") return job
    const clear = { type: "job.clear" } as const
    if (!this.lifecycle.can(jobId, clear)) return explainJobRefusal(job.snapshot, clear)
    this.feed(job, clear)
    return `job ${jobId} cleared.`
  }

  /** forge_jobs handoff: the job now belongs to the given (root) session and survives the subagent. */
  async handoff(jobId: string, rootSession: string): Promise<string> {
    const job = findJob(jobId, this.jobs, this.deps.registry)
    if (typeof job === "string") return job
    this.deps.registry.handOff(jobId, rootSession)
    // Written before the answer: an opencode that dies right after it still leaves the job to the root session.
    await this.deps.registry.flush()
    return `job ${jobId} now belongs to session ${rootSession}.`
  }

  /** The host says a session went idle or busy: wakes are delivered only into idle sessions. */
  sessionStatus(sessionId: string, status: "idle" | "busy"): void {
    this.wakes.sessionStatus(sessionId, status)
    if (status === "busy") return
    for (const job of this.jobs.values()) if (this.ownerOf(job) === sessionId && job.snapshot.hasTag("wake-pending")) void this.deliverWake(job)
  }

  /** A deleted session's live jobs die with it. */
  async sessionDeleted(sessionId: string): Promise<void> {
    this.wakes.forget(sessionId)
    const owned = [...this.jobs.entries()].filter(([, j]) => this.ownerOf(j) === sessionId && j.snapshot.hasTag("alive"))
    for (const [jobId, job] of owned) {
      this.note("session-deleted", job.snapshot.context, `session ${sessionId} was deleted: its job was killed`)
      await this.kill(jobId)
    }
  }

  /** Exit handlers: kill every live job that is not in survive mode, synchronously. */
  killAllNow(): void {
    for (const job of this.jobs.values()) {
      const { context } = job.snapshot
      if (job.snapshot.hasTag("alive") && !context.survive && context.pid !== null)
        this.deps.processes.killTreeNow({ pid: context.pid, jobId: context.jobId, shim: context.shim })
    }
  }

  /** Plugin dispose: a graceful pass over every live non-survive job. */
  async dispose(): Promise<void> {
    const live = [...this.jobs.values()].filter(({ snapshot }) => snapshot.hasTag("alive") && !snapshot.context.survive).map((job) => job.jobId)
    // The graceful pass: the adapter's full SIGTERM grace before anything is SIGKILLed.
    await Promise.all(live.map((id) => this.killWith(id)))
    for (const job of this.jobs.values()) quiesce(job)
    // What was recorded lands before the host closes the database.
    await Promise.all([this.lifecycle.idle(), this.deps.registry.flush(), this.deps.ledger.flush()])
  }

  /** Carries out what the machine decides whenever it moves: a wake owed, nothing left to watch, an entry to drop. */
  private watch(jobId: string, job: LiveJob): void {
    this.lifecycle.subscribe(jobId, (snapshot) => {
      job.snapshot = snapshot
      if (!snapshot.hasTag("alive")) quiesce(job)
      if (snapshot.status === "done") this.forget(jobId)
    })
  }

  /**
   * The first event of a restored job, applied by the process that takes the job's driver claim: the machine's driver
   * gate, asked with `can()` on the claim as read inside the claim's write, decides (a live holder keeps the job). The
   * step itself still lands only on the record read.
   */
  private async claim(job: LiveJob, eventFor: (driver: DriverFacts) => JobEvent): Promise<boolean> {
    const claims = this.deps.claims
    let event: JobEvent | undefined
    const may = (driver: DriverFacts) => {
      event = eventFor(driver)
      return this.lifecycle.can(job.jobId, event)
    }
    // Without a workspace database this process is the only one: nobody else holds a claim.
    const taken = claims === undefined ? may(soleDriver()) : (await claims.drive(JOB_CLAIMS, job.jobId, may)).taken
    if (taken && event !== undefined && (await this.lifecycle.claim(job.jobId, event)) !== undefined) return true
    if (taken) await claims?.release(JOB_CLAIMS, job.jobId)
    quiesce(job)
    this.jobs.delete(job.jobId)
    this.lifecycle.remove(job.jobId)
    return false
  }

  /** Feeds the job's machine what happened; an event it does not take now (or a job already ended) changes nothing. */
  private feed(job: LiveJob, event: JobEvent): void {
    if (this.lifecycle.has(job.jobId)) this.lifecycle.send(job.jobId, event)
  }

  /** Resolves once the caller of forge_shell stops waiting (the first completion condition, or the end). */
  private async released(job: LiveJob): Promise<void> {
    if (!this.lifecycle.has(job.jobId)) return
    await this.lifecycle.waitFor(job.jobId, (snapshot) => !snapshot.hasTag("caller-waiting"))
  }

  /** Ledgers what happened to a job nobody was waiting on (and says it in the log too). */
  private note(kind: JobLedgerEntry["kind"], context: JobContext, message: string): void {
    this.deps.log.info(`job ${context.jobId} (${context.command}): ${message}`)
    this.deps.ledger.append({ at: this.deps.clock.now(), kind, jobId: context.jobId, sessionId: context.sessionId, command: context.command, message })
  }

  /** New output up to `size`: scanned for the success pattern (to the end, in bounded steps) while the caller waits. */
  private onGrowth(job: LiveJob, size: number): void {
    job.growth = job.growth
      .then(async () => {
        const snapshot = job.snapshot
        if (!snapshot.hasTag("alive")) return
        const outcome = await scanJobOutput(job, size, this.deps.processes.readNew)
        if (outcome.kind === "abandoned") this.deps.log.warn(`job ${snapshot.context.jobId}: ${outcome.reason}`)
        this.feed(job, { type: "job.output", at: this.deps.clock.now(), matched: outcome.kind === "matched" })
        this.armTimer(job)
        releaseGrowthWaiters(job)
      })
      .catch((error: unknown) => this.deps.log.warn(`job output handling failed: ${String(error)}`))
  }

  /** Wakes the caller at the next deadline (idle or max wait) while it waits. */
  private armTimer(job: LiveJob): void {
    job.timer?.cancel()
    const { context } = job.snapshot
    if (!job.snapshot.hasTag("caller-waiting") || context.startedAt === null) return
    const due = nextDeadline({
      lastActivityAt: context.lastActivityAt ?? context.startedAt,
      idleMs: context.idleMs,
      startedAt: context.startedAt,
      maxWaitMs: context.maxWaitMs,
    })
    job.timer = this.deps.timers.setTimeout(
      () => {
        this.feed(job, { type: "job.tick", now: this.deps.clock.now() })
        this.armTimer(job)
      },
      Math.max(0, due - this.deps.clock.now()),
    )
  }

  private deliverWake(job: LiveJob): Promise<void> {
    return this.wakes.deliver(job, this.ownerOf(job), () => this.feed(job, { type: "job.wake.delivered" }))
  }

  /** The job's machine is final: its entry leaves the registry, and late calls hear "already consumed". */
  private forget(jobId: string): void {
    this.deps.claims
      ?.release(JOB_CLAIMS, jobId)
      .catch((error: unknown) => this.deps.log.warn(`job ${jobId}: its driver claim could not be released: ${String(error)}`))
    const job = this.jobs.get(jobId)
    if (job) quiesce(job)
    this.jobs.delete(jobId)
    this.lifecycle.remove(jobId)
    this.deps.registry.end(jobId)
  }

  /** The session a job belongs to now (the registry knows every job this host runs). */
  private ownerOf(job: LiveJob): string {
    const { context } = job.snapshot
    return this.deps.registry.ownerOf(context.jobId) ?? context.sessionId
  }
}
