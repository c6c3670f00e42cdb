// Spawning a job: output lands in its log, exit status and signal are reported, and completion follows the exit
// event even while a detached grandchild still holds the log open.
import { readFileSync, readdirSync, readlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { hasEnv, JOB_HOST_VAR, JOB_ID_VAR, pidsWithEnv, readProcess, readProcessStat, spawnJob } from "../../../adapters/process/index"
import { makeTempDir, pidJanitor, waitFor } from "./process.helpers"

const janitor = pidJanitor()
const temp = makeTempDir()
afterAll(() => temp.remove())
afterEach(() => janitor.cleanup())

let counter = 0
function options(command: string, extra: { env?: Record<string, string | undefined>; fenced?: boolean } = {}) {
  counter += 1
  return {
    command,
    cwd: temp.dir,
    logFile: path.join(temp.dir, "logs", `job-${counter}.log`),
    marker: `spawn-${process.pid}-${counter}`,
    fenced: extra.fenced ?? false,
    ...(extra.env ? { env: extra.env } : {}),
  }
}

describe("spawnJob", () => {
  it("writes stdout and stderr to the log and reports the exit code", async () => {
    const job = await spawnJob(options("echo out; echo err >&2; pwd; exit 3"))
    const exit = await job.exited
    expect(exit.code).toBe(3)
    expect(exit.signal).toBeNull()
    expect(exit.at).toBeGreaterThanOrEqual(job.startedAt)
    expect(readFileSync(job.logFile, "utf8")).toBe(`out\nerr\n${temp.dir}\n`)
  })

  it("reports the signal that ended the job", async () => {
    const job = await spawnJob(options("sleep 30"))
    janitor.add(job.pid)
    process.kill(-job.pid, "SIGTERM")
    expect(await job.exited).toMatchObject({ code: null, signal: "SIGTERM" })
  })

  it("completes on exit while a detached grandchild still holds the log open", async () => {
    const job = await spawnJob(options("sleep 30 & echo started"))
    const exit = await job.exited
    // The grandchild sleeps 30 s holding the log: an exit bound to output EOF would take that long.
    expect(exit.at - job.startedAt).toBeLessThan(10_000)
    expect(exit.code).toBe(0)
    // A process caught inside its execve shows an empty environment for a moment (seen on a loaded machine): the
    // grandchild is looked for until it is found, not once.
    expect(await waitFor(() => pidsWithEnv(JOB_ID_VAR, job.jobId).length === 1, 5_000)).toBe(true)
    const [grandchild] = pidsWithEnv(JOB_ID_VAR, job.jobId)
    expect(grandchild).toBeDefined()
    janitor.add(grandchild as number)
    // The grandchild really holds the log as its stdout: stdio EOF would never have come.
    expect(readlinkSync(`/proc/${grandchild}/fd/1`)).toBe(job.logFile)
    expect(readFileSync(job.logFile, "utf8")).toBe("started\n")
  })

  it("leads its own process group and session, and the host keeps no descriptor of the log", async () => {
    const job = await spawnJob(options("sleep 30"))
    janitor.add(job.pid)
    const info = readProcess(job.pid)
    // Its parent is its subreaper shim where perl can run one, else the host itself.
    expect(info).toMatchObject({ pid: job.pid, pgid: job.pid, sid: job.pid, ppid: job.shim?.pid ?? process.pid })
    const hostFiles = readdirSync("/proc/self/fd").map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`)
      } catch {
        return ""
      }
    })
    expect(hostFiles).not.toContain(job.logFile)
  })

  it("stamps the marker on every process, applies env overrides and drops inherited markers", async () => {
    process.env[JOB_HOST_VAR] = "inherited-token"
    try {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${...} here is sh parameter expansion, run by the job's shell
      const job = await spawnJob(options('sleep 30 & echo "$EXTRA|${HOME-unset}|${FORGE_JOB_HOST-none}"; wait', { env: { EXTRA: "x", HOME: undefined } }))
      janitor.add(job.pid)
      expect(await waitFor(() => pidsWithEnv(JOB_ID_VAR, job.jobId).length === 2, 10_000)).toBe(true)
      for (const pid of pidsWithEnv(JOB_ID_VAR, job.jobId)) janitor.add(pid)
      expect(hasEnv(job.pid, JOB_ID_VAR, job.jobId)).toBe(true)
      expect(await waitFor(() => readFileSync(job.logFile, "utf8").length > 0, 10_000)).toBe(true)
      expect(readFileSync(job.logFile, "utf8")).toBe("x|unset|none\n")
    } finally {
      delete process.env[JOB_HOST_VAR]
    }
  })

  it("appends to an existing log", async () => {
    const first = options("echo one")
    await (await spawnJob(first)).exited
    await (await spawnJob({ ...first, command: "echo two", marker: `${first.marker}-b` })).exited
    expect(readFileSync(first.logFile, "utf8")).toBe("one\ntwo\n")
  })

  it("rejects a missing cwd, a missing shell and a bad marker with errors naming command and cwd", async () => {
    const missing = path.join(temp.dir, "nope")
    await expect(spawnJob({ ...options("echo hi"), cwd: missing })).rejects.toThrow(
      `cannot spawn command "echo hi" in "${missing}": the working directory does not exist`,
    )
    const shell = { path: path.join(temp.dir, "no-shell"), family: "sh" as const, argv: (c: string) => ["-c", c] }
    await expect(spawnJob({ ...options("echo hi"), shell })).rejects.toThrow(
      `cannot spawn command "echo hi" in "${temp.dir}": the shell ${shell.path} does not exist or is not executable`,
    )
    await expect(spawnJob({ ...options("echo hi"), marker: "bad marker" })).rejects.toThrow(/job id "bad marker" is not a valid job marker/)
    await expect(spawnJob({ ...options("echo hi"), cwd: "relative" })).rejects.toThrow(/cwd: cwd must be an absolute path/)
    // A log path under a regular file cannot be created.
    const blocked = path.join(temp.dir, "blocker")
    writeFileSync(blocked, "")
    await expect(spawnJob({ ...options("echo hi"), logFile: path.join(blocked, "x.log") })).rejects.toThrow(
      `cannot spawn command "echo hi" in "${temp.dir}": cannot open its log ${path.join(blocked, "x.log")}: `,
    )
  })

  it("reaps the exited leader: no zombie is left in the process table", async () => {
    const job = await spawnJob(options("exit 0"))
    await job.exited
    expect(await waitFor(() => readProcessStat(job.pid) === null, 10_000)).toBe(true)
  })
})
