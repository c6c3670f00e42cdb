// Killing a job's tree, verified: nested children, a process that ignores SIGTERM, a `setsid` escapee that left
// the group, and the synchronous variant for exit handlers.
import path from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { descendantsOf, isAlive, JOB_ID_VAR, killJobTree, killJobTreeNow, pidsWithEnv, readProcess, spawnJob } from "../../../adapters/process/index"
import { makeTempDir, pidJanitor, waitFor } from "./process.helpers"

const janitor = pidJanitor()
const temp = makeTempDir()
afterAll(() => temp.remove())
afterEach(() => janitor.cleanup())

let counter = 0
async function startJob(command: string, processes: number) {
  counter += 1
  const job = await spawnJob({
    command,
    cwd: temp.dir,
    logFile: path.join(temp.dir, `kill-${counter}.log`),
    marker: `kill-${process.pid}-${counter}`,
    fenced: false,
  })
  // Wait for the tree to settle, not just to reach the count: a forked subshell is briefly a marker carrier of its
  // own before it execs (or, for setsid, before it leaves the group).
  let last = ""
  let stableSince = Date.now()
  const started = await waitFor(() => {
    const now = pidsWithEnv(JOB_ID_VAR, job.jobId)
      .filter(isAlive)
      .map((pid) => `${pid}:${readProcess(pid)?.sid}:${readProcess(pid)?.comm}`)
      .join(",")
    if (now !== last) {
      last = now
      stableSince = Date.now()
    }
    return now.split(",").filter(Boolean).length >= processes && Date.now() - stableSince >= 150
  }, 10_000)
  const pids = pidsWithEnv(JOB_ID_VAR, job.jobId).filter(isAlive)
  janitor.add(job.pid, ...pids)
  expect(started, `expected ${processes} processes, found ${pids.length}`).toBe(true)
  return { job, pids }
}

describe("killJobTree", () => {
  it("kills a three-level tree within the grace and reports no survivors", async () => {
    // leader -> sh -> sh -> sleep: three levels below the leader (`; true` keeps each sh from exec'ing its last command).
    const { job, pids } = await startJob("sh -c 'sh -c \"sleep 60; true\" & sleep 60; true' & sleep 60 & wait", 6)
    const tree = descendantsOf(job.pid)
    const depth = (pid: number): number => {
      const parent = tree.find((info) => info.pid === pid)?.ppid
      return parent === undefined ? 0 : 1 + depth(parent)
    }
    expect(Math.max(...tree.map((info) => depth(info.pid)))).toBe(3)
    const started = Date.now()
    const report = await killJobTree(job, { graceMs: 3000 })
    // Well inside the 3 s grace: the kill stops waiting as soon as the tree is gone.
    expect(Date.now() - started).toBeLessThan(2500)
    expect(report.survivors).toEqual([])
    expect(report.killed).toEqual(expect.arrayContaining(pids))
    expect(pids.filter(isAlive)).toEqual([])
    expect((await job.exited).signal).toBe("SIGTERM")
  })

  it("SIGKILLs a process that ignores SIGTERM once the grace ran out", async () => {
    const { job, pids } = await startJob("trap '' TERM; sleep 60 & wait", 2)
    const started = Date.now()
    const report = await killJobTree(job, { graceMs: 400 })
    const took = Date.now() - started
    expect(took).toBeGreaterThanOrEqual(400)
    // The SIGKILL follows the grace; it never waits on the process that ignores SIGTERM.
    expect(took).toBeLessThan(5000)
    expect(report.survivors).toEqual([])
    expect(pids.filter(isAlive)).toEqual([])
    expect((await job.exited).signal).toBe("SIGKILL")
  })

  it("finds and kills a setsid grandchild that left the process group", async () => {
    const { job, pids } = await startJob("setsid sleep 60 & sleep 60 & wait", 3)
    const escapee = pids.map(readProcess).find((info) => info && info.sid !== job.pid)
    expect(escapee, "a process in its own session").toBeDefined()
    expect(escapee?.pgid).not.toBe(job.pid)
    const report = await killJobTree(job, { graceMs: 1000 })
    expect(report.survivors).toEqual([])
    expect(report.killed).toContain(escapee?.pid)
    expect(isAlive(escapee?.pid as number)).toBe(false)
  })

  it("kills the escapees of a job whose leader already exited", async () => {
    const { job } = await startJob("setsid sleep 60 & sleep 60 & echo done", 2)
    await job.exited
    // The shell is gone; its two sleeps (one in a new session) still carry the job's marker.
    expect(await waitFor(() => pidsWithEnv(JOB_ID_VAR, job.jobId).filter(isAlive).length === 2, 10_000)).toBe(true)
    const left = pidsWithEnv(JOB_ID_VAR, job.jobId).filter(isAlive)
    const report = await killJobTree(job, { graceMs: 1000 })
    expect(report.survivors).toEqual([])
    expect(left.filter(isAlive)).toEqual([])
  })

  it("answers at once for a job that is already gone", async () => {
    const { job } = await startJob("exit 0", 0)
    await job.exited
    const started = Date.now()
    expect(await killJobTree(job, { graceMs: 3000 })).toEqual({ killed: [], survivors: [] })
    // Not the 3 s grace: nothing is left to wait for.
    expect(Date.now() - started).toBeLessThan(2500)
  })
})

describe("killJobTreeNow", () => {
  it("SIGKILLs the group and the marked escapees synchronously", async () => {
    const { job, pids } = await startJob("trap '' TERM; setsid sleep 60 & sleep 60 & wait", 3)
    // The sleeps must be running (a forked subshell seen by the scan may already have exec'd or gone).
    expect(await waitFor(() => pidsWithEnv(JOB_ID_VAR, job.jobId).filter(isAlive).length === 3, 10_000)).toBe(true)
    const running = pidsWithEnv(JOB_ID_VAR, job.jobId).filter(isAlive)
    const signalled = killJobTreeNow(job)
    expect(signalled).toEqual(expect.arrayContaining(running))
    expect(await waitFor(() => pids.every((pid) => !isAlive(pid)), 10_000)).toBe(true)
    expect((await job.exited).signal).toBe("SIGKILL")
  })
})
