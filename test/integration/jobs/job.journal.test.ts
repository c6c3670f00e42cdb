import path from "node:path"
import { createActor } from "xstate"
import { afterEach, beforeEach, expect, it } from "vitest"
import { tempDir } from "../../temp.dir"
import { type LifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { type JobInput, jobMachine } from "../../../machines/job.machine"
import { JobJournal } from "../../../services/jobs/job.journal"
import { memoryLogger } from "../plan/plan.helpers"

// The journal records job transitions in the shared lifecycle tables and keeps only the newest finished jobs there.

let dir: string
let store: LifecycleStore
beforeEach(async () => {
  dir = tempDir("forge-journal-")
  store = await openLifecycleStore(dir)
})
afterEach(async () => {
  await store.close()
})

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
})

it("prunes all but the newest finished jobs every few finishes; live jobs and their records stay", async () => {
  let now = 1_000
  const log = memoryLogger()
  const journal = new JobJournal(async () => store.repository, { now: () => now++ }, log, { historyLimit: 3, pruneEvery: 4 })
  const live = createActor(jobMachine, { input: input("live"), inspect: journal.inspector("live") }).start()
  live.send({ type: "job.spawned", pid: 4242, at: now })
  const finish = (n: number) => {
    const id = `job_${n}`
    const actor = createActor(jobMachine, { input: input(id), inspect: journal.inspector(id) }).start()
    actor.send({ type: "job.spawned", pid: 5000 + n, at: now })
    actor.send({ type: "job.exit", code: 0, signal: null, at: now })
  }
  for (let n = 1; n <= 3; n++) finish(n)
  await journal.flush()
  const finished = async () => (await store.repository.loadSnapshots({ machineId: "job" })).filter((r) => r.terminal).map((r) => r.instanceId).sort()
  expect(await finished()).toEqual(["job_1", "job_2", "job_3"])
  // The fourth finish prunes down to the newest three: job_1's snapshot and transitions go.
  finish(4)
  await journal.flush()
  expect(await finished()).toEqual(["job_2", "job_3", "job_4"])
  expect(await store.repository.listTransitions({ instanceId: "job_1" })).toEqual([])
  expect((await store.repository.listTransitions({ instanceId: "job_4" })).map((t) => t.to)).toEqual(["starting", "running", "cleared"])
  expect((await store.repository.getSnapshot("job", "live"))?.state).toBe("running")
  expect(log.lines.join("\n")).toContain("pruned the records of 1 finished job(s); the newest 3 are kept")
  // An explicit prune (the start-up one) applies the same bound.
  finish(5)
  await journal.prune()
  expect(await finished()).toEqual(["job_3", "job_4", "job_5"])
  live.stop()
})
