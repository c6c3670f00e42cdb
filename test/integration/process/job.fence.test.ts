// The fence: a host killed with SIGKILL (no JavaScript runs) leaves no process of its fenced jobs alive, while a
// survive job (fenced: false) outlives it.
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { isAlive, JOB_HOST_VAR, type JobTarget, killJobTree, pidsWithEnv, readProcess, spawnJob, startFence } from "../../../adapters/process/index"
import { makeTempDir, nodeWithTsx, pidJanitor, pidList, startHost, waitFor } from "./process.helpers"

const janitor = pidJanitor()
const temp = makeTempDir()
afterAll(() => temp.remove())
afterEach(() => janitor.cleanup())

describe("job fence", () => {
  // Both containments: the subreaper shim, and the environment markers alone (the fallback where perl cannot run it).
  it.each(["auto", "markers"])(
    "kills every process of a fenced job, setsid escapee included, when its host is SIGKILLed (containment: %s)",
    async (containment) => {
      const host = await startHost("fence", temp.dir, nodeWithTsx, ["", "0", containment])
      const fenced = pidList(host.report.fenced)
      const survivor = pidList(host.report.survivor)
      const fencePid = host.report.fence as number
      janitor.add(...fenced, ...survivor, fencePid, host.child.pid as number)

      // The escapee really left the job's process group and session.
      const sessions = new Set(fenced.map((pid) => readProcess(pid)?.sid))
      expect(sessions.size, host.output()).toBeGreaterThan(1)
      expect(fenced.every(isAlive)).toBe(true)

      host.child.kill("SIGKILL")
      await host.exited
      const allGone = await waitFor(() => fenced.every((pid) => !isAlive(pid)), 5000)
      expect(allGone, `still alive: ${fenced.filter(isAlive).join(", ")}`).toBe(true)
      // The watcher leaves once its sweep is done.
      expect(await waitFor(() => !isAlive(fencePid), 3000)).toBe(true)
      // The survive job is not the fence's business: it lives on until someone kills it explicitly.
      expect(survivor.every(isAlive), `survive job pids ${survivor.join(", ")}`).toBe(true)
      const report = await killJobTree(host.report.survivorJob as JobTarget, { graceMs: 1000 })
      expect(report.survivors).toEqual([])
      expect(report.killed).toEqual(expect.arrayContaining(survivor))
    },
  )

  it("gives fenced jobs the host token and keeps it off the watcher and off survive jobs", async () => {
    const fence = startFence()
    await fence.ready
    janitor.add(fence.pid)
    const fenced = await spawnJob({ command: "sleep 30", cwd: temp.dir, logFile: `${temp.dir}/t1.log`, marker: "token-fenced", fenced: true })
    const free = await spawnJob({ command: "sleep 30", cwd: temp.dir, logFile: `${temp.dir}/t2.log`, marker: "token-free", fenced: false })
    janitor.add(fenced.pid, free.pid)
    const carriers = pidsWithEnv(JOB_HOST_VAR, fence.token)
    expect(carriers).toContain(fenced.pid)
    expect(carriers).not.toContain(free.pid)
    expect(carriers).not.toContain(fence.pid)
    expect(startFence()).toBe(fence)
  })

  it("stop() retires the watcher without killing the jobs it guarded", async () => {
    const job = await spawnJob({ command: "sleep 30", cwd: temp.dir, logFile: `${temp.dir}/s.log`, marker: "stop-fenced", fenced: true })
    const fence = startFence()
    janitor.add(job.pid, fence.pid)
    fence.stop()
    expect(await waitFor(() => !isAlive(fence.pid), 3000)).toBe(true)
    expect(isAlive(job.pid)).toBe(true)
    // The next fenced spawn starts a new watcher with the same token.
    const next = startFence()
    janitor.add(next.pid)
    expect(next.pid).not.toBe(fence.pid)
    expect(next.token).toBe(fence.token)
  })
})
