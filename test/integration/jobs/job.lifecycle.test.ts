import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterEach, beforeEach, expect, it } from "vitest"
import { type LifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { MAX_SURVIVORS } from "../../../machines/job/job.gates"
import type { JobInput } from "../../../machines/job/job.machine"
import { defineJobLifecycle } from "../../../services/job/job.lifecycle"
import { LifecycleHost } from "../../../services/lifecycle/lifecycle.host"
import { memoryLogger } from "../plan/plan.helpers"

// The job lifecycle records job transitions in the shared lifecycle tables (not the output and ticks that change no
// state), keeps only the newest finished jobs there, and reads back records written before jobs named host and shim.

let dir: string
let store: LifecycleStore
beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "forge-journal-"))
  store = await openLifecycleStore(dir)
})
afterEach(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

const noEffects = {
  processes: { killTree: async () => ({ survivors: [] }) },
  killed: () => undefined,
  wake: () => undefined,
}

const input = (jobId: string): JobInput => ({
  jobId,
  sessionId: "s1",
  command: "true",
  cwd: dir,
  logFile: path.join(dir, `${jobId}.log`),
  idleMs: 60_000,
  maxWaitMs: 120_000,
  hasPattern: false,
  keepAlive: true,
  background: false,
  notify: true,
  survive: false,
  host: { pid: process.pid, startedAt: 1, instance: "a" },
  birth: { liveSurvivors: 0, maxSurvivors: MAX_SURVIVORS },
})

it("prunes all but the newest finished jobs every few finishes; live jobs and their records stay", async () => {
  let now = 1_000
  const log = memoryLogger()
  const clock = { now: () => now++ }
  const host = new LifecycleHost({ repository: async () => store.repository, clock, log })
  const jobs = defineJobLifecycle(host, { ...noEffects, clock }, { retention: { keep: 3, every: 4 } })
  jobs.start("live", input("live"))
  jobs.send("live", { type: "job.spawned", pid: 4242, at: now })
  const finish = (n: number) => {
    const id = `job_${n}`
    jobs.start(id, input(id))
    jobs.send(id, { type: "job.spawned", pid: 5000 + n, at: now })
    jobs.send(id, { type: "job.exit", code: 0, signal: null, at: now })
  }
  for (let n = 1; n <= 3; n++) finish(n)
  await host.idle()
  const finished = async () =>
    (await store.repository.loadSnapshots({ machineId: "job" }))
      .filter((r) => r.terminal)
      .map((r) => r.instanceId)
      .sort()
  expect(await finished()).toEqual(["job_1", "job_2", "job_3"])
  // The fourth finish prunes down to the newest three: job_1's snapshot and transitions go.
  finish(4)
  await host.idle()
  expect(await finished()).toEqual(["job_2", "job_3", "job_4"])
  expect(await store.repository.listTransitions({ instanceId: "job_1" })).toEqual([])
  expect((await store.repository.listTransitions({ instanceId: "job_4" })).map((t) => t.to)).toEqual(["starting", "running", "cleared"])
  expect((await store.repository.getSnapshot("job", "live"))?.state).toBe("running")
  expect(log.lines.join("\n")).toContain("pruned the records of 1 finished job(s); the newest 3 are kept")
  // An explicit prune (the start-up one) applies the same bound.
  finish(5)
  await host.idle()
  await jobs.prune()
  expect(await finished()).toEqual(["job_3", "job_4", "job_5"])
  host.stopAll()
})

it("records no output or tick that leaves the state as it was, and records the ones that move it", async () => {
  const clock = { now: () => 1_000 }
  const host = new LifecycleHost({ repository: async () => store.repository, clock, log: memoryLogger() })
  const jobs = defineJobLifecycle(host, { ...noEffects, clock })
  jobs.start("j", { ...input("j"), idleMs: 100, maxWaitMs: 1_000 })
  jobs.send("j", { type: "job.spawned", pid: 4242, at: 0 })
  jobs.send("j", { type: "job.output", at: 10, matched: false })
  jobs.send("j", { type: "job.tick", now: 50 })
  jobs.send("j", { type: "job.tick", now: 110 })
  await host.idle()
  const rows = await store.repository.listTransitions({ instanceId: "j" })
  expect(rows.map((t) => `${t.from} --${t.event}--> ${t.to}`)).toEqual([
    "(none) --xstate.init--> starting",
    "starting --job.spawned--> running",
    "running --job.tick--> earlyReturned",
  ])
  host.stopAll()
})

it("restores a record written before jobs named their host, shim and birth facts: a host that is gone, no shim, past its birth", () => {
  const host = new LifecycleHost({ repository: async () => undefined, clock: { now: () => 1 }, log: memoryLogger() })
  const jobs = defineJobLifecycle(host, { ...noEffects, clock: { now: () => 1 } })
  const {
    host: _host,
    birth: _birth,
    ...older
  } = {
    ...input("old"),
    pid: 4242,
    startedAt: 1,
    lastActivityAt: 1,
    endedAt: null,
    exitCode: null,
    signal: null,
    error: null,
    completion: null,
    previousRun: false,
  }
  const restored = jobs.restore({
    machineId: "job",
    machineVersion: "1",
    instanceId: "old",
    sessionId: "s1",
    state: "running",
    terminal: false,
    snapshot: { value: "running", context: older },
    document: null,
    updatedAt: 1,
  })
  expect(restored.kind).toBe("restored")
  expect(jobs.snapshot("old")?.context).toMatchObject({ host: { pid: 0, startedAt: 0, instance: "unknown" }, shim: null, pid: 4242, birth: null })
  expect(
    jobs.restore({
      machineId: "job",
      machineVersion: "2",
      instanceId: "torn",
      sessionId: null,
      state: "running",
      terminal: false,
      snapshot: { value: "running", context: null },
      document: null,
      updatedAt: 1,
    }).kind,
  ).toBe("unfit")
  host.stopAll()
})

it("restores a record of today's version written before the birth gate was the machine's: no birth facts, past its birth", () => {
  const host = new LifecycleHost({ repository: async () => undefined, clock: { now: () => 1 }, log: memoryLogger() })
  const jobs = defineJobLifecycle(host, { ...noEffects, clock: { now: () => 1 } })
  const { birth: _birth, ...today } = { ...input("today"), survive: true, shim: null, pid: 4242, startedAt: 1, lastActivityAt: 1 }
  const context = { ...today, endedAt: null, exitCode: null, signal: null, error: null, completion: "background", previousRun: false }
  const restored = jobs.restore({
    machineId: "job",
    machineVersion: "2",
    instanceId: "today",
    sessionId: "s1",
    state: "earlyReturned",
    terminal: false,
    snapshot: { value: "earlyReturned", context },
    document: null,
    updatedAt: 1,
  })
  expect(restored.kind).toBe("restored")
  expect(jobs.snapshot("today")?.value).toBe("earlyReturned")
  expect(jobs.snapshot("today")?.context).toMatchObject({ birth: null, survive: true, pid: 4242, host: { pid: process.pid, startedAt: 1, instance: "a" } })
  host.stopAll()
})

it("the machine's effects: a match with keep_alive false decides the kill and then carries it out, once; an unread exit owes one wake", async () => {
  const clock = { now: () => 2_000 }
  const kills: string[] = []
  const wakes: string[] = []
  const outcomes: Promise<{ survivors: number[] }>[] = []
  const host = new LifecycleHost({ repository: async () => store.repository, clock, log: memoryLogger() })
  const jobs = defineJobLifecycle(host, {
    clock,
    processes: {
      killTree: async (target) => {
        // The kill is decided (recorded in the machine) before it is carried out.
        kills.push(`${target.jobId} pid ${target.pid} in ${jobs.snapshot(target.jobId)?.value ?? "(gone)"}`)
        return { survivors: [] }
      },
    },
    killed: (_, outcome) => void outcomes.push(outcome),
    wake: (jobId) => void wakes.push(jobId),
  })
  jobs.start("kill", { ...input("kill"), hasPattern: true, keepAlive: false })
  jobs.send("kill", { type: "job.spawned", pid: 4242, at: 0 })
  jobs.send("kill", { type: "job.output", at: 10, matched: true })
  expect(await Promise.all(outcomes)).toEqual([{ survivors: [] }])
  expect(kills).toEqual(["kill pid 4242 in killed"])
  // keep_alive true: the match releases the caller and the process runs on; its unread exit owes one wake.
  jobs.start("keep", { ...input("keep"), hasPattern: true, keepAlive: true })
  jobs.send("keep", { type: "job.spawned", pid: 4343, at: 0 })
  jobs.send("keep", { type: "job.output", at: 10, matched: true })
  jobs.send("keep", { type: "job.exit", code: 0, signal: null, at: 20 })
  expect(kills).toHaveLength(1)
  expect(wakes).toEqual(["keep"])
  await host.idle()
  const rows = async (id: string) => (await store.repository.listTransitions({ instanceId: id })).map((t) => `${t.from} --${t.event}--> ${t.to}`)
  expect(await rows("kill")).toEqual([
    "(none) --xstate.init--> starting",
    "starting --job.spawned--> running",
    "running --job.output--> succeededByPattern",
    "succeededByPattern --job.kill--> killed",
  ])
  expect((await rows("keep")).slice(2)).toEqual(["running --job.output--> succeededByPattern", "succeededByPattern --job.exit--> exited.wakePending"])
  host.stopAll()
})
