// The exit matrix in a real host process: a fatal signal or error kills the host's jobs and the host still ends the
// way it would have; a signal the host handles itself leaves both the host and its jobs running.
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { isAlive } from "../../../adapters/process/index"
import { makeTempDir, pidJanitor, pidList, sleep, startHost, waitFor } from "./process.helpers"

const janitor = pidJanitor()
const temp = makeTempDir()
afterAll(() => temp.remove())
afterEach(() => janitor.cleanup())

describe("exit matrix", () => {
  it("kills the jobs on SIGTERM and the host still dies by SIGTERM", async () => {
    const host = await startHost("matrix", temp.dir)
    const jobs = pidList(host.report.jobs)
    janitor.add(...jobs, host.child.pid as number)
    expect(jobs.every(isAlive)).toBe(true)

    host.child.kill("SIGTERM")
    const exit = await host.exited
    expect(exit, host.output()).toEqual({ code: null, signal: "SIGTERM" })
    // Unfenced jobs: only the matrix can have killed them, before the host went.
    expect(await waitFor(() => jobs.every((pid) => !isAlive(pid)), 10_000), `alive: ${jobs.filter(isAlive)}`).toBe(true)
  })

  it("kills the jobs on SIGINT and the host still dies by SIGINT", async () => {
    const host = await startHost("matrix", temp.dir)
    const jobs = pidList(host.report.jobs)
    janitor.add(...jobs, host.child.pid as number)
    host.child.kill("SIGINT")
    expect(await host.exited, host.output()).toEqual({ code: null, signal: "SIGINT" })
    expect(await waitFor(() => jobs.every((pid) => !isAlive(pid)), 10_000)).toBe(true)
  })

  it("kills the jobs on an uncaught error, which still ends the host with status 1 and its stack", async () => {
    const host = await startHost("matrix-throw", temp.dir)
    const jobs = pidList(host.report.jobs)
    janitor.add(...jobs, host.child.pid as number)
    expect(await host.exited, host.output()).toEqual({ code: 1, signal: null })
    expect(host.output()).toContain("host failure on purpose")
    expect(await waitFor(() => jobs.every((pid) => !isAlive(pid)), 10_000)).toBe(true)
  })

  it("leaves host and jobs running when the host handles SIGTERM itself", async () => {
    const host = await startHost("matrix-handled", temp.dir)
    const jobs = pidList(host.report.jobs)
    janitor.add(...jobs, host.child.pid as number)
    host.child.kill("SIGTERM")
    await waitFor(() => host.output().includes("host handled SIGTERM"), 3000)
    await sleep(200)
    expect(host.output()).toContain("host handled SIGTERM")
    expect(host.child.exitCode).toBeNull()
    expect(jobs.every(isAlive)).toBe(true)

    // When such a host does exit, the exit listener takes the jobs along.
    host.child.kill("SIGUSR2")
    expect(await host.exited).toEqual({ code: 0, signal: null })
    expect(await waitFor(() => jobs.every((pid) => !isAlive(pid)), 10_000)).toBe(true)
  })
})
