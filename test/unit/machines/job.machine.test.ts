import { describe, expect, it } from "vitest"
import { type SnapshotFrom, createActor, getNextSnapshot, initialTransition, transition } from "xstate"
import { firstDeadlineReached, isAdoptable, restoredJobFate, isIdleAt, isMaxWaitReachedAt, nextDeadline } from "../../../machines/job/job.gates"
import { type JobEvent, type JobInput, type JobTag, jobMachine } from "../../../machines/job/job.machine"
import type { DriverFacts } from "../../../machines/driver.claim"
import { JOB_T0, jobInput } from "./job.fixtures"

type Snapshot = SnapshotFrom<typeof jobMachine>

/** The restoring process "b" reads the job's driver claim: nobody's, as after a host that never took one. */
const free: DriverFacts = { me: "b", claim: null, holderAlive: false, now: 0 }

const input = jobInput
const T0 = JOB_T0
const spawned: JobEvent = { type: "job.spawned", pid: 4242, at: T0 }
const exit0: JobEvent = { type: "job.exit", code: 0, signal: null, at: T0 + 200_000 }
const tick = (afterMs: number): JobEvent => ({ type: "job.tick", now: T0 + afterMs })
const output = (afterMs: number, matched = false): JobEvent => ({ type: "job.output", at: T0 + afterMs, matched })

/** Applies each event, asserting the machine accepts it. */
function run(events: JobEvent[], overrides: Partial<JobInput> = {}): Snapshot {
  let [snapshot] = initialTransition(jobMachine, { ...input, ...overrides })
  for (const event of events) {
    expect(snapshot.can(event), `${event.type} from ${JSON.stringify(snapshot.value)}`).toBe(true)
    snapshot = getNextSnapshot(jobMachine, snapshot, event)
  }
  return snapshot
}

/** The event is refused: `can` says no and the snapshot does not change. */
function expectRefused(snapshot: Snapshot, event: JobEvent): void {
  expect(snapshot.can(event), `${event.type} from ${JSON.stringify(snapshot.value)}`).toBe(false)
  const next = getNextSnapshot(jobMachine, snapshot, event)
  expect(next.value).toEqual(snapshot.value)
  expect(next.context).toEqual(snapshot.context)
}

const tagsOf = (snapshot: Snapshot): string[] => [...snapshot.tags].sort()

const earlyReturnedIdle = (overrides: Partial<JobInput> = {}) => run([spawned, tick(60_000)], overrides)
const succeeded = (overrides: Partial<JobInput> = {}) => run([spawned, output(5_000, true)], overrides)

describe("the caller waits for the first of four conditions", () => {
  it("exit ends the wait and clears the job: the foreground exit is terminal evidence, nothing to wake", () => {
    const done = run([spawned, output(1_000), exit0])
    expect(done.value).toBe("cleared")
    expect(done.status).toBe("done")
    expect(done.context).toMatchObject({ completion: "exit", exitCode: 0, signal: null, endedAt: T0 + 200_000 })
    expect(done.hasTag("wake-pending")).toBe(false)
    const signalled = run([spawned, { type: "job.exit", code: null, signal: "SIGTERM", at: T0 + 10 }])
    expect(signalled.context).toMatchObject({ completion: "exit", exitCode: null, signal: "SIGTERM" })
  })

  it("a matching output ends the wait with succeededByPattern, and the process stays alive", () => {
    const matched = succeeded()
    expect(matched.value).toBe("succeededByPattern")
    expect(matched.context).toMatchObject({ completion: "pattern", lastActivityAt: T0 + 5_000 })
    expect(matched.hasTag("alive")).toBe(true)
    expect(matched.hasTag("caller-waiting")).toBe(false)
  })

  it("a pattern matches only when one was given", () => {
    const noPattern = run([spawned, output(5_000, true)], { hasPattern: false })
    expect(noPattern.value).toBe("running")
    expect(noPattern.context.completion).toBeNull()
    expect(run([spawned, output(5_000, false)]).value).toBe("running")
  })

  it("idle: no output for idleMs since the start returns early with completion idle", () => {
    expectRefused(run([spawned]), tick(59_999))
    const idle = run([spawned, tick(60_000)])
    expect(idle.value).toBe("earlyReturned")
    expect(idle.context.completion).toBe("idle")
    expect(idle.hasTag("alive")).toBe(true)
  })

  it("output resets the idle clock", () => {
    const talking = run([spawned, output(30_000)])
    expect(talking.context.lastActivityAt).toBe(T0 + 30_000)
    expectRefused(talking, tick(60_000))
    expectRefused(talking, tick(89_999))
    expect(getNextSnapshot(jobMachine, talking, tick(90_000)).context.completion).toBe("idle")
    // Output reported out of order never moves the clock back.
    expect(getNextSnapshot(jobMachine, talking, output(10_000)).context.lastActivityAt).toBe(T0 + 30_000)
  })

  it("max wait since the start returns early with completion max-wait, even while output keeps coming", () => {
    const chatty = run([spawned, output(50_000), output(100_000), output(119_000)])
    expectRefused(chatty, tick(119_999))
    const capped = getNextSnapshot(jobMachine, chatty, tick(120_000))
    expect(capped.value).toBe("earlyReturned")
    expect(capped.context.completion).toBe("max-wait")
    expect(capped.hasTag("alive")).toBe(true)
  })

  it("a tick before either deadline changes nothing", () => {
    const waiting = run([spawned, output(10_000)])
    for (const at of [0, 1, 59_999, 69_999]) expectRefused(waiting, tick(at))
  })

  it("only running reacts to ticks: an early-returned job is not re-completed", () => {
    expectRefused(earlyReturnedIdle(), tick(500_000))
    expectRefused(succeeded(), tick(500_000))
  })

  // One late tick can find both deadlines passed: the caller is told about the one that passed first — here the
  // max-wait deadline (start + 120 s) before the idle one (last output at 100 s + 60 s = 160 s).
  it("a late tick past both deadlines reports the one that passed first", () => {
    const late = getNextSnapshot(jobMachine, run([spawned, output(100_000)]), tick(170_000))
    expect(late.context.completion).toBe("max-wait")
  })
})

describe("background jobs", () => {
  it("skip waiting: spawned goes straight to earlyReturned with completion background", () => {
    const background = run([spawned], { background: true })
    expect(background.value).toBe("earlyReturned")
    expect(background.context).toMatchObject({ completion: "background", pid: 4242, startedAt: T0 })
    expect(background.hasTag("caller-waiting")).toBe(false)
    expect(getNextSnapshot(jobMachine, background, exit0).value).toEqual({ exited: "wakePending" })
  })
})

describe("wakes for an unread completion", () => {
  it("a later exit of an early-returned job queues exactly one wake", () => {
    const ended = getNextSnapshot(jobMachine, earlyReturnedIdle(), exit0)
    expect(ended.value).toEqual({ exited: "wakePending" })
    expect(ended.hasTag("wake-pending")).toBe(true)
    expect(ended.context).toMatchObject({ completion: "idle", exitCode: 0, endedAt: T0 + 200_000 })
    expectRefused(ended, { type: "job.exit", code: 1, signal: null, at: T0 + 300_000 })
  })

  it("a later exit of a pattern-succeeded job queues one wake too (the server dying is news)", () => {
    const ended = getNextSnapshot(jobMachine, succeeded(), { type: "job.exit", code: 1, signal: null, at: T0 + 9_000 })
    expect(ended.value).toEqual({ exited: "wakePending" })
    expect(ended.context).toMatchObject({ completion: "pattern", exitCode: 1 })
  })

  it("notify: false queues none", () => {
    for (const live of [earlyReturnedIdle({ notify: false }), succeeded({ notify: false })]) {
      const ended = getNextSnapshot(jobMachine, live, exit0)
      expect(ended.value).toEqual({ exited: "unread" })
      expect(ended.hasTag("wake-pending")).toBe(false)
      expect(ended.hasTag("listed")).toBe(true)
    }
  })

  it("delivery clears the tag once; a second delivery is refused", () => {
    const delivered = run([spawned, tick(60_000), exit0, { type: "job.wake.delivered" }])
    expect(delivered.value).toEqual({ exited: "unread" })
    expect(delivered.hasTag("wake-pending")).toBe(false)
    expectRefused(delivered, { type: "job.wake.delivered" })
  })

  it("a terminal poll consumes the entry whether or not the wake was delivered", () => {
    const pending = run([spawned, tick(60_000), exit0])
    expect(getNextSnapshot(jobMachine, pending, { type: "job.poll" }).value).toBe("cleared")
    const delivered = getNextSnapshot(jobMachine, pending, { type: "job.wake.delivered" })
    expect(getNextSnapshot(jobMachine, delivered, { type: "job.poll" }).value).toBe("cleared")
    expect(getNextSnapshot(jobMachine, pending, { type: "job.clear" }).value).toBe("cleared")
  })

  it("a poll of a live job is refused and changes nothing", () => {
    for (const live of [run([]), run([spawned]), earlyReturnedIdle(), succeeded()]) expectRefused(live, { type: "job.poll" })
  })

  it("nothing is ever delivered for a job without a pending wake", () => {
    for (const snapshot of [run([spawned]), earlyReturnedIdle(), run([spawned, exit0])]) expectRefused(snapshot, { type: "job.wake.delivered" })
  })
})

describe("ends", () => {
  it("kill from any alive state is final", () => {
    for (const live of [run([spawned]), earlyReturnedIdle(), succeeded(), run([spawned], { background: true })]) {
      expect(live.hasTag("alive")).toBe(true)
      const killed = getNextSnapshot(jobMachine, live, { type: "job.kill", at: T0 + 7 })
      expect(killed.value).toBe("killed")
      expect(killed.status).toBe("done")
      expect(killed.context).toMatchObject({ completion: "killed", endedAt: T0 + 7 })
      expectRefused(killed, exit0)
    }
  })

  it("a spawn failure clears the job with completion spawn-failed and the error", () => {
    const failed = run([{ type: "job.spawnFailed", error: "spawn /bin/bash ENOENT", at: T0 }])
    expect(failed.value).toBe("cleared")
    expect(failed.status).toBe("done")
    expect(failed.context).toMatchObject({ completion: "spawn-failed", error: "spawn /bin/bash ENOENT", endedAt: T0, pid: null })
  })

  it("survive mode: the next start adopts an early-returned job or ledgers it as an orphan", () => {
    const adopter = { pid: 200, startedAt: T0, instance: "b" }
    const adopted = getNextSnapshot(jobMachine, earlyReturnedIdle({ survive: true }), { type: "job.adopt", at: T0 + 1, host: adopter, driver: free })
    expect(adopted.value).toBe("earlyReturned")
    expect(adopted.context.previousRun).toBe(true)
    // The adopter runs the job now: a restart while it lives leaves the job to it.
    expect(adopted.context.host).toEqual(adopter)
    const orphan = getNextSnapshot(jobMachine, adopted, { type: "job.orphan", at: T0 + 2, driver: free })
    expect(orphan.value).toBe("orphaned")
    expect(orphan.context).toMatchObject({ completion: "orphaned", endedAt: T0 + 2 })
  })

  // A survive job kept alive after its success pattern (a dev server, the usual survive job) is adopted by the next
  // start, or ledgered as an orphan when it died with the host.
  it("survive mode: a pattern-succeeded job can be adopted and orphaned too", () => {
    const live = succeeded({ survive: true })
    expect(live.can({ type: "job.adopt", at: T0 + 1, host: { pid: 200, startedAt: T0, instance: "b" }, driver: free })).toBe(true)
    expect(live.can({ type: "job.orphan", at: T0 + 1, driver: free })).toBe(true)
  })

  it("the driver gate: a restore takes a job on only where the claim's holder is this process, gone, or lapsed", () => {
    const live = earlyReturnedIdle({ survive: true })
    const host = { pid: 200, startedAt: T0, instance: "b" }
    const heldBy = (holder: string, holderAlive: boolean, until: number): DriverFacts => ({ me: "b", claim: { holder, until }, holderAlive, now: 1_000 })
    const cases: [DriverFacts, boolean][] = [
      [free, true],
      [heldBy("b", true, 5_000), true],
      [heldBy("c", false, 5_000), true],
      [heldBy("c", true, 1_000), true],
      // A live holder inside its claim keeps the job: adopt, orphan and a restore's spawn failure are all refused.
      [heldBy("c", true, 5_000), false],
    ]
    for (const [driver, may] of cases) {
      expect(live.can({ type: "job.adopt", at: T0 + 1, host, driver }), JSON.stringify(driver)).toBe(may)
      expect(live.can({ type: "job.orphan", at: T0 + 1, driver }), JSON.stringify(driver)).toBe(may)
      expect(run([]).can({ type: "job.spawnFailed", error: "the host stopped", at: T0, driver }), JSON.stringify(driver)).toBe(may)
    }
    // The spawning process itself sends its spawn failure without a claim: it is the job's host.
    expect(run([]).can({ type: "job.spawnFailed", error: "spawn /bin/bash ENOENT", at: T0 })).toBe(true)
  })
})

describe("tags", () => {
  it("caller-waiting only in starting and running; alive while the process lives; listed where forge_jobs list shows it", () => {
    const cases: [Snapshot, JobTag[]][] = [
      [run([]), ["caller-waiting"]],
      [run([spawned]), ["alive", "caller-waiting", "listed"]],
      [succeeded(), ["alive", "listed"]],
      [earlyReturnedIdle(), ["alive", "listed"]],
      [run([spawned, tick(60_000), exit0]), ["listed", "wake-pending"]],
      [run([spawned, tick(60_000), exit0, { type: "job.wake.delivered" }]), ["listed"]],
      [run([spawned, exit0]), []],
      [run([spawned, { type: "job.kill", at: T0 }]), []],
      [run([spawned, tick(60_000), { type: "job.orphan", at: T0, driver: free }]), []],
    ]
    for (const [snapshot, tags] of cases) expect(tagsOf(snapshot), JSON.stringify(snapshot.value)).toEqual(tags)
  })
})

describe("persistence", () => {
  it("a persisted snapshot round-trips through JSON and resolveState with the same value and context", () => {
    for (const snapshot of [run([]), run([spawned, output(3_000)]), succeeded(), run([spawned, tick(60_000), exit0])]) {
      const json = JSON.stringify(jobMachine.getPersistedSnapshot(snapshot))
      const restored = jobMachine.resolveState(JSON.parse(json) as Snapshot)
      expect(restored.value).toEqual(snapshot.value)
      expect(restored.context).toEqual(snapshot.context)
      expect(tagsOf(restored)).toEqual(tagsOf(snapshot))
    }
  })

  it("a restored actor continues where the persisted one stopped", () => {
    const first = createActor(jobMachine, { input }).start()
    first.send(spawned)
    first.send(output(30_000))
    const persisted = JSON.parse(JSON.stringify(first.getPersistedSnapshot())) as Snapshot
    first.stop()
    const second = createActor(jobMachine, { input, snapshot: persisted }).start()
    second.send(tick(60_000))
    expect(second.getSnapshot().value).toBe("running")
    second.send(tick(90_000))
    expect(second.getSnapshot().value).toBe("earlyReturned")
    expect(second.getSnapshot().context.completion).toBe("idle")
    second.stop()
  })
})

describe("pure transitions request no effects", () => {
  it("every transition of the job machine is context-only", () => {
    const [, actions] = transition(jobMachine, run([spawned]), output(1_000, true))
    expect(actions).toEqual([])
  })
})

describe("gate predicates", () => {
  it("deadlines are inclusive and the next deadline is the earlier one", () => {
    expect(isIdleAt({ now: 1_000, lastActivityAt: 0, idleMs: 1_000 })).toBe(true)
    expect(isIdleAt({ now: 999, lastActivityAt: 0, idleMs: 1_000 })).toBe(false)
    expect(isMaxWaitReachedAt({ now: 2_500, startedAt: 0, maxWaitMs: 2_500 })).toBe(true)
    expect(isMaxWaitReachedAt({ now: 2_499, startedAt: 0, maxWaitMs: 2_500 })).toBe(false)
    expect(nextDeadline({ lastActivityAt: 2_000, idleMs: 1_000, startedAt: 0, maxWaitMs: 2_500 })).toBe(2_500)
    expect(nextDeadline({ lastActivityAt: 500, idleMs: 1_000, startedAt: 0, maxWaitMs: 2_500 })).toBe(1_500)
  })

  it("a late tick names the deadline passed first", () => {
    expect(firstDeadlineReached({ now: 5_000, lastActivityAt: 0, idleMs: 1_000, startedAt: 0, maxWaitMs: 2_500 })).toBe("idle")
    expect(firstDeadlineReached({ now: 5_000, lastActivityAt: 2_000, idleMs: 1_000, startedAt: 0, maxWaitMs: 2_500 })).toBe("max-wait")
    expect(firstDeadlineReached({ now: 500, lastActivityAt: 0, idleMs: 1_000, startedAt: 0, maxWaitMs: 2_500 })).toBeNull()
  })

  it("a restored live job is adopted only when it is a survive job whose process still runs", () => {
    expect(isAdoptable({ processAlive: true, survive: true })).toBe(true)
    expect(isAdoptable({ processAlive: true, survive: false })).toBe(false)
    expect(isAdoptable({ processAlive: false, survive: true })).toBe(false)
  })

  it("a dead host's record becomes a spawn failure, an adoption, an orphan or a take-over, by where the job stood", () => {
    const fate = (o: Partial<Parameters<typeof restoredJobFate>[0]>) =>
      restoredJobFate({ starting: false, live: true, processAlive: true, survive: true, ...o })
    expect(fate({ starting: true })).toBe("spawn-failed")
    expect(fate({})).toBe("adopt")
    expect(fate({ survive: false })).toBe("orphan")
    expect(fate({ processAlive: false })).toBe("orphan")
    // Ended while no host ran, its status kept by its shim: adopted, so its end is reported (a fenced job is not).
    expect(fate({ processAlive: false, exitKept: true })).toBe("adopt")
    expect(fate({ processAlive: false, exitKept: true, survive: false })).toBe("orphan")
    expect(fate({ live: false, processAlive: false })).toBe("take-over")
    // A finished job of a dead host is still owed to its session: the next host takes it over, adopted or not.
    const pending = run([spawned, tick(60_000), exit0], { notify: true })
    expect(pending.value).toEqual({ exited: "wakePending" })
    const exited = run([spawned, tick(60_000), exit0, { type: "job.adopt", at: T0 + 300_000, host: { pid: 2, startedAt: 3, instance: "b" }, driver: free }], {
      notify: true,
    })
    expect(exited.value).toEqual({ exited: "wakePending" })
    expect(exited.context).toMatchObject({ previousRun: true, host: { pid: 2, startedAt: 3, instance: "b" } })
  })
})
