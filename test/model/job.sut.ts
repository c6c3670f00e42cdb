import { expect } from "vitest"
import { type SnapshotFrom, initialTransition, transition } from "xstate"
import { createKeyValueStorage } from "../../adapters/storage/keyvalue.storage"
import { SqliteLedgerStore } from "../../adapters/storage/ledger.repository"
import { type LifecycleStore, createLifecycleStore } from "../../adapters/storage/lifecycle.store"
import { openSqliteDriver } from "../../adapters/storage/sqlite.driver"
import { MAX_SURVIVORS } from "../../machines/job/job.gates"
import { type JobEvent, type JobHost, type JobInput, jobMachine } from "../../machines/job/job.machine"
import { explainJobBirthRefusal } from "../../machines/job/job.refusals"
import { stateToString } from "../../machines/state.text"
import { JobLedger } from "../../services/job/job.ledger"
import { JobRegistry } from "../../services/job/job.registry"
import type { ShellRequest } from "../../services/job/job.request"
import { OutsideJobs } from "../../services/job/job.outside"
import { JobSupervisor } from "../../services/job/job.service"
import { DriverClaims } from "../../services/lifecycle/driver.claim"
import { parseSuccessPattern } from "../../services/job/success.pattern"
import { GateRefusal } from "../../services/lifecycle/gate.refusal"
import { LifecycleHost } from "../../services/lifecycle/lifecycle.host"
import { memoryLogger } from "../integration/plan/plan.helpers"
import { type FakeJobProcesses, JobWorld, MATCHING_OUTPUT, SimulatedClock, SimulatedTimers, fakeJobLogs } from "./job.fakes"
import type { ModelStep, ModelSut } from "../../testing"

type JobModel = typeof jobMachine
type Snapshot = SnapshotFrom<JobModel>

/** Lets every promise the supervisor chained settle (the fakes answer at once; SQLite writes are awaited apart). */
async function settle(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve))
}

/** The forge_shell request whose machine input is the model's input. */
function requestOf(input: JobInput): ShellRequest {
  return {
    command: input.command,
    cwd: input.cwd,
    successPattern: input.hasPattern ? parseSuccessPattern(MATCHING_OUTPUT) : null,
    keepAlive: input.keepAlive,
    idleMs: input.idleMs,
    maxWaitMs: input.maxWaitMs,
    background: input.background,
    survive: input.survive,
    sandbox: null,
    notify: input.notify,
  }
}

/** One host process running the real supervisor: the parts a restart replaces. */
interface Host {
  host: JobHost
  supervisor: JobSupervisor
  /** The lifecycle host of this boot: its one write queue records the job. */
  lifecycles: LifecycleHost
  processes: FakeJobProcesses
  timers: SimulatedTimers
  registry: JobRegistry
  /** A dead host writes nothing more and wakes nobody. */
  dead: boolean
}

/**
 * The one factory of the job SUT: the real JobSupervisor (lifecycle, registry and ledger over an in-memory SQLite
 * database through the storage adapter) over a process world that spawns nothing, with simulated clock and timers.
 */
export async function startJobSut(input: JobInput): Promise<ModelSut<JobModel>> {
  const store = await createLifecycleStore(await openSqliteDriver(":memory:"))
  const world = new JobWorld()
  const clock = new SimulatedClock()
  const wakes: string[] = []
  const keyValue = createKeyValueStorage(store.connection, clock.now)
  const ledgerStore = new SqliteLedgerStore(store.connection)
  const boot = (host: JobHost): Host => {
    const processes = world.processesFor(host)
    const timers = new SimulatedTimers(clock)
    const log = memoryLogger()
    const running: Partial<Host> & { dead: boolean } = { dead: false }
    const registry = new JobRegistry(host, keyValue)
    const lifecycles = new LifecycleHost({ repository: async () => (running.dead ? undefined : store.repository), clock, log })
    const supervisor = new JobSupervisor({
      processes,
      logs: fakeJobLogs(world, input.logFile),
      clock,
      timers,
      log,
      wake: async (sessionId) => void (running.dead || wakes.push(sessionId)),
      newJobId: () => input.jobId,
      lifecycles: lifecycles,
      ledger: new JobLedger(ledgerStore),
      registry,
      host,
      // Sessions are busy unless the model delivers a wake: the supervisor never wakes on its own.
      sessionIsIdle: async () => false,
      // The cap the model's birth facts name (the supervisor's own default when it is MAX_SURVIVORS).
      ...(input.birth.maxSurvivors === MAX_SURVIVORS ? {} : { maxSurvivors: input.birth.maxSurvivors }),
    })
    return Object.assign(running, { host, supervisor, lifecycles, processes, timers, registry })
  }
  const first = boot(input.host)
  const sut = new JobSut(input, store, world, clock, wakes, first, boot)
  const [born] = initialTransition(jobMachine, input)
  if (born.matches("refused")) {
    // The birth gate refuses the job in the machine's words, and the supervisor creates nothing of it.
    const error = await first.supervisor.run(input.sessionId, requestOf(input)).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error, "the birth gate refuses the job").toBeInstanceOf(GateRefusal)
    expect((error as Error).message, "the machine's refusal").toBe(explainJobBirthRefusal(born))
    sut.unborn = true
    return sut
  }
  sut.call = first.supervisor.run(input.sessionId, requestOf(input)).then(
    () => sut.release(),
    () => sut.release(),
  )
  await settle()
  expect(world.spawnRequest?.request.logFile, "the job was spawned").toBe(input.logFile)
  return sut
}

const QUIET = new Set(["job.output", "job.tick"])

class JobSut implements ModelSut<JobModel> {
  call: Promise<void> | undefined
  /** The forge_shell call has returned (or thrown). */
  released = false
  /** The birth gate refused the job: nothing of it exists, whatever comes after. */
  unborn = false
  private restarted = false

  release(): void {
    this.released = true
  }
  /** The transition rows the model says the host records: every accepted event but quiet ones that change no state. */
  private readonly expectedLog: { event: string; to: string }[] = [{ event: "xstate.init", to: "starting" }]
  /** The context of the last written snapshot: quiet events are not written, so the row keeps the one before. */
  private storedContext: Snapshot["context"] | undefined
  private expectedWakes = 0
  private expectedKills = 0
  /** The model after the kill a killAfterMatch effect fed back: the service is there already, one event ahead. */
  private fedKill: Snapshot | undefined

  constructor(
    private readonly input: JobInput,
    private readonly store: LifecycleStore,
    private readonly world: JobWorld,
    private readonly clock: SimulatedClock,
    private readonly wakes: string[],
    private current: Host,
    private readonly boot: (host: JobHost) => Host,
  ) {}

  async apply({ event, before, after, accepted, actions }: ModelStep<JobModel>): Promise<void> {
    if (this.unborn) return this.produceUnborn(event)
    if (this.fedKill !== undefined && event.type === "job.kill") {
      // The harness fed this kill itself, in the step that matched: it is recorded and carried out already.
      this.fedKill = undefined
      return
    }
    const to = stateToString(after.value)
    if (accepted && !(QUIET.has(event.type) && to === stateToString(before.value))) {
      this.expectedLog.push({ event: event.type, to })
      this.storedContext = after.context
    }
    if (accepted && event.type === "job.wake.delivered") this.expectedWakes += 1
    if (accepted && event.type === "job.kill") this.expectedKills += 1
    if (actions.some((a) => a.type === "killAfterMatch")) {
      // Fed at the moment of the match, the time of the output that matched.
      const [killed] = transition(jobMachine, after, { type: "job.kill", at: event.type === "job.output" ? event.at : this.clock.at })
      this.fedKill = killed
      this.expectedLog.push({ event: "job.kill", to: stateToString(killed.value) })
      this.storedContext = killed.context
      this.expectedKills += 1
    }
    await this.produce(event, before, accepted)
    await settle()
  }

  private async produce(event: JobEvent, before: Snapshot, accepted: boolean): Promise<void> {
    const { supervisor } = this.current
    const jobId = this.input.jobId
    switch (event.type) {
      case "job.spawned":
        this.clock.at = event.at
        expect(this.world.spawned(event.pid, event.at), "a spawn is pending").toBe(accepted)
        return
      case "job.spawnFailed":
        if (event.driver !== undefined) return this.restoreBeside(before, accepted)
        this.clock.at = event.at
        expect(this.world.spawnFailed(event.error), "a spawn is pending").toBe(accepted)
        return
      case "job.output":
        this.clock.at = event.at
        return this.world.output(this.input.logFile, event.matched)
      case "job.tick":
        this.clock.at = event.now
        return this.current.timers.fireDue()
      case "job.exit":
        this.clock.at = event.at
        return this.world.exit({ code: event.code, signal: event.signal, at: event.at })
      case "job.kill": {
        if (event.driver?.me === NEIGHBOUR) return this.recordBeside(event.type, before, accepted)
        this.clock.at = event.at
        const reply = await supervisor.kill(jobId)
        expect(!/already finished|still being spawned|already consumed|unknown job/.test(reply), `kill reply: ${reply}`).toBe(accepted)
        return
      }
      case "job.poll": {
        const reply = await supervisor.poll(jobId)
        if (before.status === "done") expect(reply).toMatch(/already consumed/)
        else expect(reply).toContain(`job: ${jobId}`)
        return
      }
      case "job.clear":
        if (event.driver?.me === NEIGHBOUR) return this.recordBeside(event.type, before, accepted)
        expect(supervisor.clear(jobId) === `job ${jobId} cleared.`, "clear reply").toBe(accepted)
        return
      case "job.wake.delivered":
        // The owner goes idle (the wake is delivered into it) and busy again.
        supervisor.sessionStatus(this.input.sessionId, "idle")
        await settle()
        supervisor.sessionStatus(this.input.sessionId, "busy")
        return
      case "job.adopt":
        if (event.driver.me === NEIGHBOUR) return this.restoreBeside(before, accepted)
        this.clock.at = event.at
        // A live job's process is adopted; a finished one's record (its result still owed) is taken over as it is.
        return this.restart(event.host, accepted, before.hasTag("alive") ? "adopted" : "takenOver")
      case "job.orphan":
        if (event.driver.me === NEIGHBOUR) return this.restoreBeside(before, accepted)
        // A restart that finds a finished job takes it over (the job.adopt path above): no orphan to find there.
        if (!accepted && before.matches("exited")) return
        this.clock.at = event.at
        // The process ended while no host ran, so nobody saw its exit.
        this.world.vanish()
        return this.restart(ORPHANING_HOST, accepted, "orphaned")
    }
  }

  /** What the world and the model's caller can do about a job refused at birth: every call finds no such job. */
  private async produceUnborn(event: JobEvent): Promise<void> {
    const { supervisor } = this.current
    const jobId = this.input.jobId
    const unknown = `unknown job ${jobId}. forge_jobs list shows the jobs.`
    switch (event.type) {
      case "job.spawned":
        return void expect(this.world.spawned(event.pid, event.at), "no spawn is pending").toBe(false)
      case "job.spawnFailed":
        return void expect(this.world.spawnFailed(event.error), "no spawn is pending").toBe(false)
      case "job.output":
        return this.world.output(this.input.logFile, event.matched)
      case "job.tick":
        this.clock.at = event.now
        return this.current.timers.fireDue()
      case "job.exit":
        return this.world.exit({ code: event.code, signal: event.signal, at: event.at })
      case "job.kill":
        return void expect(await supervisor.kill(jobId), "kill reply").toBe(unknown)
      case "job.poll":
        return void expect(await supervisor.poll(jobId), "poll reply").toBe(unknown)
      case "job.clear":
        return void expect(supervisor.clear(jobId), "clear reply").toBe(unknown)
      case "job.wake.delivered":
        supervisor.sessionStatus(this.input.sessionId, "idle")
        await settle()
        return supervisor.sessionStatus(this.input.sessionId, "busy")
      case "job.adopt":
      case "job.orphan":
        throw new Error(`a job refused at birth leaves no record to restore: ${event.type} is not a model event here`)
    }
  }

  /**
   * `forgecharts jobs --kill` or `--clear` beside the live host: the job's records read from outside opencode, and the
   * event recorded only where the machine's driver gate lets that process drive the job, which it never does while
   * the host lives (agreesWith checks that the records stayed the model's).
   */
  private async recordBeside(type: "job.kill" | "job.clear", before: Snapshot, accepted: boolean): Promise<void> {
    expect(accepted, "a process beside the live host never records into its job").toBe(false)
    const claims = new DriverClaims({ store: async () => undefined, identity: { me: NEIGHBOUR, isAlive: () => false }, clock: this.clock, log: memoryLogger() })
    const isHostAlive = (host: JobHost) => this.current.processes.isHostAlive(host)
    const outside = await OutsideJobs.open({ repository: this.store.repository, claims, isHostAlive, clock: this.clock, log: memoryLogger() })
    const outcome = await outside.record(this.input.jobId, type)
    expect(outcome.recorded, outcome.note).toBeNull()
    // A finished job takes neither from anyone; a live one is its host's.
    expect(outcome.recorded === null && outcome.refusedBy, outcome.note).toBe(before.status === "done" || !this.hostTakes(before, type) ? "state" : "driver")
  }

  /** Whether the host itself could record the event now (the same event without driver facts). */
  private hostTakes(before: Snapshot, type: "job.kill" | "job.clear"): boolean {
    return before.can(type === "job.kill" ? { type, at: this.clock.at } : { type })
  }

  /** The host dies (no dispose: its records stop where they are) and a new one restores from the database. */
  private async restart(host: JobHost, accepted: boolean, outcome: "adopted" | "takenOver" | "orphaned"): Promise<void> {
    this.current.dead = true
    this.current.timers.clear()
    this.world.hostDied(this.current.host, this.current.processes)
    this.restarted = true
    this.current = this.boot(host)
    const restored = await this.current.supervisor.restore(this.store.repository)
    expect(restored.problems, "restore problems").toEqual([])
    expect(restored[outcome].includes(this.input.jobId), `restore ${outcome} the job`).toBe(accepted)
  }

  /**
   * Another opencode process starts beside the live host and restores the workspace: the job's host drives it, so the
   * machine's driver gate leaves the job there, and the neighbour neither lists nor records it (agreesWith checks the
   * records against the model's, which the refused event left as they were).
   */
  private async restoreBeside(before: Snapshot, accepted: boolean): Promise<void> {
    expect(accepted, "a process beside the live host never takes its job").toBe(false)
    const neighbour = this.boot(NEIGHBOUR_HOST)
    try {
      const restored = await neighbour.supervisor.restore(this.store.repository)
      expect(restored.problems, "restore problems").toEqual([])
      // A finished job's record is no live one: the neighbour's restore never sees it.
      expect(restored.elsewhere.includes(this.input.jobId), "the neighbour leaves the job to its host").toBe(before.status !== "done")
      expect(neighbour.supervisor.list(), "the neighbour's jobs").toBe("no jobs")
    } finally {
      neighbour.dead = true
      neighbour.timers.clear()
      this.world.hostDied(neighbour.host, neighbour.processes)
      await neighbour.lifecycles.idle()
    }
  }

  async agreesWith(stepped: Snapshot): Promise<void> {
    const model = this.fedKill ?? stepped
    await settle()
    await this.current.lifecycles.idle()
    if (this.unborn) return this.agreesUnborn(model)
    const { jobId } = this.input
    const state = stateToString(model.value)
    const { context } = model
    // The service: what forge_jobs list answers, and whether the forge_shell call has returned.
    const listed = this.current.supervisor.list(this.input.sessionId)
    if (model.status === "done") expect(listed, "service list").toBe("no jobs")
    else
      expect(listed, "service list").toBe(
        `- ${jobId} [${state}${context.previousRun ? ", previous-run" : ""}] pid ${context.pid ?? "-"} cwd ${context.cwd} — ${context.command}`,
      )
    if (!this.restarted) expect(this.released, "the forge_shell call has returned").toBe(!model.hasTag("caller-waiting"))
    expect(this.wakes.length, "wakes sent").toBe(this.expectedWakes)
    expect(this.world.kills.length, "tree kills").toBe(this.expectedKills)
    // The store: the job's snapshot row and its transition rows.
    const row = await this.store.repository.getSnapshot(jobMachine.id, jobId)
    expect(row?.state, "stored state").toBe(state)
    expect(row?.terminal, "stored terminal flag").toBe(model.status === "done")
    this.storedContext ??= context
    expect(this.comparable((row?.snapshot as { context?: unknown } | undefined)?.context), "stored context").toEqual(this.comparable(this.storedContext))
    const log = await this.store.repository.listTransitions({ instanceId: jobId })
    expect(
      log.map(({ event, to }) => ({ event, to })),
      "transition rows",
    ).toEqual(this.expectedLog)
  }

  /** A job refused at birth left nothing: not listed, no spawn, no log rotation, no wake or kill, no row in the store. */
  private async agreesUnborn(model: Snapshot): Promise<void> {
    expect(model.value, "the model stays refused").toBe("refused")
    expect(this.current.supervisor.list(), "service list").toBe("no jobs")
    expect(this.current.registry.registrations(), "no registry entry").toEqual([])
    expect(this.world.spawnRequest, "no spawn asked").toBeUndefined()
    expect(this.world.process, "no process").toBeUndefined()
    expect(this.world.rotations, "no log rotation").toBe(0)
    expect(this.wakes, "wakes sent").toEqual([])
    expect(this.world.kills, "tree kills").toEqual([])
    expect(await this.store.repository.getSnapshot(jobMachine.id, this.input.jobId), "no snapshot row").toBeUndefined()
    expect(await this.store.repository.listTransitions({ instanceId: this.input.jobId }), "no transition rows").toEqual([])
  }

  /**
   * A restart restores the last written snapshot, and quiet output since then is not in it: from then on the last
   * activity time may lag the model's. It only sets a waiting caller's deadlines, and no restored job has a caller.
   */
  private comparable(context: unknown): unknown {
    const copy = JSON.parse(JSON.stringify(context ?? null)) as Record<string, unknown> | null
    if (this.restarted && copy) delete copy.lastActivityAt
    return copy
  }

  async stop(): Promise<void> {
    this.current.dead = true
    this.current.timers.clear()
    this.world.hostDied(this.current.host, this.current.processes)
    await this.current.lifecycles.idle()
    await this.store.close()
  }
}

/** The process a model event's driver names when it starts beside the live host (its restore must leave the job). */
export const NEIGHBOUR = "(a process started beside the live host)"
const NEIGHBOUR_HOST: JobHost = { pid: 400, startedAt: 7_000, instance: "n" }

/** The host that restarts after a crash and finds the job orphaned (any other live host than the first). */
const ORPHANING_HOST: JobHost = { pid: 300, startedAt: 6_000, instance: "c" }
