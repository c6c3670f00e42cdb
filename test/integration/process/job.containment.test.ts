// Containment the kernel enforces: a job's descendants die with their host however they hid — background, nohup,
// setsid, a double fork, SIGTERM ignored, the environment cleared or stripped of the job markers, a forker of
// hundreds — for every way the host dies, and `killJobTree` finds them after the job's shell has exited. Survivors
// are found by a token in their argv, never by the environment they may have dropped.
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { type JobTarget, killJobTree, spawnJob } from "../../../adapters/process/index"
import { hostileTreeSize, killToken, leftoversCommand, leftoversSettled, processesWithToken } from "../../fixtures/process/hostile.tree"
import { makeTempDir, nodeWithTsx, pidJanitor, sleep, startHost, waitFor } from "./process.helpers"

const temp = makeTempDir()
const janitor = pidJanitor()
const tokens: string[] = []
afterAll(async () => {
  for (const token of tokens) killToken(token)
  janitor.cleanup()
  await temp.remove()
})

const FORKED = 200

function newToken(): string {
  const token = `forge-contain-${randomBytes(6).toString("hex")}`
  tokens.push(token)
  return token
}

const describeSurvivors = (token: string) =>
  processesWithToken(token)
    .map(({ pid, argv }) => `${pid}: ${argv.slice(0, 120)}`)
    .join("\n")

/** Waits until the whole tree runs (and stops growing), so nothing is born after the host died. */
async function treeRuns(token: string, size: number): Promise<boolean> {
  return waitFor(() => processesWithToken(token).length >= size, 30_000, 50)
}

describe("job containment (subreaper shim)", () => {
  it.concurrent.each(["SIGKILL", "SIGTERM", "SIGINT", "SIGHUP"] as const)(
    "a host killed with %s leaves no descendant of its fenced job, however it hid",
    async (signal) => {
      const token = newToken()
      const host = await startHost("contain", temp.dir, nodeWithTsx, [token, String(FORKED), "auto"])
      janitor.add(host.child.pid as number)
      expect(await treeRuns(token, hostileTreeSize(FORKED)), `tree of ${processesWithToken(token).length}\n${host.output()}`).toBe(true)
      host.child.kill(signal)
      await host.exited
      const gone = await waitFor(() => processesWithToken(token).length === 0, 15_000, 50)
      expect(gone, `survivors:\n${describeSurvivors(token)}`).toBe(true)
      expect(host.report.containment, host.output()).toBe("subreaper (perl prctl)")
    },
    90_000,
  )

  it("a survive job's descendants outlive the host and die by the adopter's kill", async () => {
    const token = newToken()
    const host = await startHost("contain-survive", temp.dir, nodeWithTsx, [token, "20", "auto"])
    janitor.add(host.child.pid as number)
    const size = hostileTreeSize(20)
    expect(await treeRuns(token, size), host.output()).toBe(true)
    host.child.kill("SIGKILL")
    await host.exited
    // Survive means survive: give a wrongful sweep time to happen, then count.
    await sleep(500)
    expect(processesWithToken(token).length, describeSurvivors(token)).toBe(size)
    // The adopter holds no pipe to the shim: it walks the shim's subtree itself.
    const report = await killJobTree(host.report.job as JobTarget, { graceMs: 300 })
    expect(report.survivors).toEqual([])
    expect(await waitFor(() => processesWithToken(token).length === 0, 10_000, 50), describeSurvivors(token)).toBe(true)
  })

  it("killJobTree after the shell exited kills the env-cleared setsid descendants", async () => {
    const token = newToken()
    const command = leftoversCommand(token, 0)
    const job = await spawnJob({ command, cwd: temp.dir, logFile: path.join(temp.dir, "after-exit.log"), marker: `after-exit-${process.pid}`, fenced: false })
    expect(await job.exited).toEqual(expect.objectContaining({ code: 0, signal: null }))
    expect(await waitFor(() => leftoversSettled(token), 10_000), describeSurvivors(token)).toBe(true)
    const report = await killJobTree(job, { graceMs: 200 })
    expect(report.survivors).toEqual([])
    expect(await waitFor(() => processesWithToken(token).length === 0, 5_000), describeSurvivors(token)).toBe(true)
  })

  it("the exit event fires when the shell exits while a hidden descendant runs, and its status is kept beside the log", async () => {
    const token = newToken()
    const logFile = path.join(temp.dir, "exit-status.log")
    const command = `env -i setsid /bin/bash -c "exec -a ${token}-held $(command -v sleep) 600" & echo started; exit 3`
    const job = await spawnJob({ command, cwd: temp.dir, logFile, marker: `exit-status-${process.pid}`, fenced: false })
    job.ref()
    const exit = await job.exited
    job.unref()
    expect(exit).toEqual(expect.objectContaining({ code: 3, signal: null }))
    expect(job.containment).toBe("subreaper (perl prctl)")
    expect(await waitFor(() => processesWithToken(token).length === 1, 5_000)).toBe(true)
    expect(readFileSync(path.join(temp.dir, "exit-status.exit"), "utf8")).toBe("exit 3 -\n")
    expect((await killJobTree(job, { graceMs: 100 })).survivors).toEqual([])
  })
})

describe("job containment fallback", () => {
  it("a shim killed with SIGKILL still lets the job's end be seen (its status is lost, its end is not)", async () => {
    const job = await spawnJob({
      command: "sleep 1",
      cwd: temp.dir,
      logFile: path.join(temp.dir, "shim-killed.log"),
      marker: `shim-killed-${process.pid}`,
      fenced: false,
    })
    janitor.add(job.pid)
    job.ref()
    process.kill(job.shim?.pid ?? -1, "SIGKILL")
    const exit = await job.exited
    job.unref()
    expect(exit).toEqual(expect.objectContaining({ code: null, signal: null }))
    expect(exit.at - job.startedAt).toBeGreaterThanOrEqual(900)
  })

  it("without perl the job runs with the environment markers as its only containment, and says so", async () => {
    const job = await spawnJob({
      command: "echo fallback",
      cwd: temp.dir,
      logFile: path.join(temp.dir, "no-perl.log"),
      marker: `no-perl-${process.pid}`,
      fenced: false,
      perl: path.join(temp.dir, "no-such-perl"),
    })
    job.ref()
    expect(await job.exited).toEqual(expect.objectContaining({ code: 0 }))
    expect(job.shim).toBeNull()
    expect(job.containment).toMatch(/^environment marker only \(.*no-such-perl.*\)$/)
    expect(readFileSync(job.logFile, "utf8")).toBe("fallback\n")
  })

  it("the markers still fence the job when containment is forced to them", async () => {
    const token = newToken()
    const host = await startHost("contain", temp.dir, nodeWithTsx, [token, "0", "markers"])
    janitor.add(host.child.pid as number)
    expect(host.report.containment).toBe("environment marker only (forced by the host)")
    // Only the descendants that kept their environment are in reach of the markers: the setsid one is.
    expect(await treeRuns(token, hostileTreeSize(0)), host.output()).toBe(true)
    const setsid = processesWithToken(token).find(({ argv }) => argv.startsWith(`${token}-setsid`))
    host.child.kill("SIGKILL")
    await host.exited
    expect(await waitFor(() => !processesWithToken(token).some(({ pid }) => pid === setsid?.pid), 10_000)).toBe(true)
  })
})
