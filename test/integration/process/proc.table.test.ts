// The /proc process table against real processes.
import path from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import {
  bootTimeMs,
  clockTicksPerSecond,
  descendantsOf,
  findByEnv,
  hasEnv,
  isSameProcess,
  JOB_ID_VAR,
  listPids,
  readProcess,
  readProcessTable,
  spawnJob,
} from "../../../adapters/process/index"
import { makeTempDir, pidJanitor, waitFor } from "./process.helpers"

const janitor = pidJanitor()
const temp = makeTempDir()
afterAll(() => temp.remove())
afterEach(() => janitor.cleanup())

describe("process table", () => {
  it("finds a spawned job by marker, with its tree, cwd, cmdline and start time", async () => {
    const jobId = `table-${process.pid}`
    const job = await spawnJob({
      command: "sleep 30 & sleep 31; true",
      cwd: temp.dir,
      logFile: path.join(temp.dir, "table.log"),
      marker: jobId,
      fenced: false,
    })
    janitor.add(job.pid)
    expect(await waitFor(() => findByEnv(JOB_ID_VAR, jobId).length === 3, 10_000)).toBe(true)
    const found = findByEnv(JOB_ID_VAR, jobId)
    janitor.add(...found.map((info) => info.pid))

    expect(found.map((info) => info.pid)).toContain(job.pid)
    const leader = readProcess(job.pid)
    expect(leader).toMatchObject({ pid: job.pid, ppid: job.shim?.pid ?? process.pid, pgid: job.pid, sid: job.pid, cwd: temp.dir })
    expect(leader?.cmdline.slice(-2)).toEqual(["-c", "sleep 30 & sleep 31; true"])
    expect(Math.abs((leader?.startedAt ?? 0) - job.startedAt)).toBeLessThan(1000)
    expect(isSameProcess(job.pid, leader?.startTicks ?? -1)).toBe(true)
    expect(isSameProcess(job.pid, (leader?.startTicks ?? 0) + 1)).toBe(false)

    // A forked child shows its parent's command line until its exec lands: on a loaded machine that window is seen.
    const commands = () =>
      descendantsOf(job.pid)
        .map((info) => info.cmdline.join(" "))
        .sort()
    await waitFor(() => commands().join("\n") === "sleep 30\nsleep 31", 10_000)
    const children = descendantsOf(job.pid)
    expect(children.map((info) => info.cmdline.join(" ")).sort()).toEqual(["sleep 30", "sleep 31"])
    expect(children.every((info) => info.ppid === job.pid && info.state !== "Z")).toBe(true)
  })

  it("matches an environment entry exactly, never a prefix or a substring", async () => {
    const job = await spawnJob({
      command: "sleep 30",
      cwd: temp.dir,
      logFile: path.join(temp.dir, "env.log"),
      marker: "exact-abc",
      fenced: false,
      env: { FORGE_TEST_VALUE: "needle-and-more" },
    })
    janitor.add(job.pid)
    // The job's processes exec in place (shim, shell, `sleep`); while an exec is under way the kernel shows an empty
    // environment, so each exact match is waited for, and the near misses can never match in any image.
    expect(await waitFor(() => hasEnv(job.pid, JOB_ID_VAR, "exact-abc"), 5_000)).toBe(true)
    expect(hasEnv(job.pid, JOB_ID_VAR, "exact-ab")).toBe(false)
    expect(hasEnv(job.pid, JOB_ID_VAR, "xact-abc")).toBe(false)
    expect(hasEnv(job.pid, "FORGE_TEST_VALUE", "needle")).toBe(false)
    expect(hasEnv(job.pid, "TEST_VALUE", "needle-and-more")).toBe(false)
    expect(await waitFor(() => hasEnv(job.pid, "FORGE_TEST_VALUE", "needle-and-more"), 5_000)).toBe(true)
    expect(findByEnv(JOB_ID_VAR, "exact-ab")).toEqual([])
  })

  it("never lists the calling process and tolerates pids that do not exist", () => {
    expect(listPids()).not.toContain(process.pid)
    expect(readProcessTable().some((info) => info.pid === process.pid)).toBe(false)
    const table = readProcessTable()
    expect(table.some((info) => info.pid === process.ppid)).toBe(true)
    expect(readProcess(2 ** 22 + 1)).toBeNull()
    expect(hasEnv(2 ** 22 + 1, "PATH", "x")).toBe(false)
    expect(descendantsOf(2 ** 22 + 1)).toEqual([])
  })

  it("converts clock ticks with the system tick rate and a boot time in the past", () => {
    expect(clockTicksPerSecond()).toBeGreaterThan(0)
    expect(bootTimeMs()).toBeLessThan(Date.now())
    const parent = readProcess(process.ppid)
    expect(parent?.startedAt).toBeGreaterThan(bootTimeMs())
    expect(parent?.startedAt).toBeLessThanOrEqual(Date.now())
  })
})
