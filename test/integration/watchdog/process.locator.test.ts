// The /proc locator against real processes: exact marker matches (setsid escapees included), the call window, the
// second wave by directory, and the processes it must never return.
import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { JOB_ID_VAR } from "../../../adapters/process/job.markers"
import { readProcess, readProcessStat, readProcessTable } from "../../../adapters/process/proc.table"
import { commandDirectories, commandPaths, createProcessLocator, hostLineage, processClock } from "../../../adapters/process/process.locator"
import type { LocateRequest } from "../../../services/watchdog/watchdog.ports"
import { janitor, makeTempDir, newCallId, settle, sleep, startShell } from "./watchdog.helpers"

const temp = makeTempDir()
afterAll(() => temp.remove())
afterEach(() => janitor.cleanup())

const locator = createProcessLocator()
const request = (callId: string, startedAt: number, extra: Partial<LocateRequest> = {}): LocateRequest => ({
  callId,
  wave: 1,
  startedAt,
  cwd: undefined,
  command: "sleep 30",
  ...extra,
})
const pidsOf = async (req: LocateRequest) => (await locator.locate(req)).map((p) => p.pid)

function script(dir: string, name: string): string {
  const file = path.join(dir, name)
  // `; true` keeps sh from exec'ing sleep, so the script's own process stays in the table.
  writeFileSync(file, "sleep 30; true\n")
  return file
}

describe("wave 1: the call's marker, matched exactly", () => {
  it("finds the process carrying the marker and its marked children, and reports the marker as seen", async () => {
    const callId = newCallId()
    const startedAt = processClock.now()
    const child = startShell("sleep 30; true", { callId })
    const pids = await settle(() => pidsOf(request(callId, startedAt)), 2)
    expect(pids).toContain(child.pid)
    expect(pids).toHaveLength(2)
    // A forked child shows its parent's command line until its exec lands: the sleep itself is waited for.
    const sleeping = async () => (await locator.locate(request(callId, startedAt))).filter((p) => p.command === "sleep 30").map((p) => p.pid)
    await settle(sleeping, 1)
    const found = await locator.locate(request(callId, startedAt))
    for (const process of found) {
      expect(process.marked).toBe(true)
      expect(process.startedAt).toBeGreaterThanOrEqual(startedAt)
    }
    expect(found.map((p) => p.command)).toContain("sleep 30")
    expect(await locator.markedCalls([callId, `${callId}_other`])).toEqual(new Set([callId]))
    // A marker value that merely starts with the call id is another call.
    expect(await pidsOf(request(callId.slice(0, -1), startedAt))).toEqual([])
  })

  it("finds a setsid grandchild that left the call's group and session", async () => {
    const callId = newCallId()
    const startedAt = processClock.now()
    const child = startShell("setsid sleep 30 & exit 0", { callId })
    await new Promise((resolve) => child.once("exit", resolve))
    // Found once it has left: its own session, running sleep.
    const left = async () =>
      (await pidsOf(request(callId, startedAt))).filter((pid) => readProcessStat(pid)?.sid === pid && readProcessStat(pid)?.comm === "sleep")
    const [escapee] = await settle(left, 1)
    expect(escapee).toBeDefined()
    const stat = readProcessStat(escapee as number)
    expect(stat?.sid).toBe(escapee)
    expect(stat?.ppid).not.toBe(child.pid)
    expect(stat?.comm).toBe("sleep")
  })

  it("never returns a process created before the call started, whatever it carries", async () => {
    const callId = newCallId()
    const early = startShell("sleep 30; true", { callId, cwd: temp.dir })
    await settle(() => pidsOf(request(callId, 0)), 2)
    await sleep(50)
    const startedAt = processClock.now()
    const late = startShell("sleep 30; true", { callId, cwd: temp.dir })
    const pids = await settle(() => pidsOf(request(callId, startedAt)), 2)
    expect(pids).toContain(late.pid)
    expect(pids).not.toContain(early.pid)
    expect(pids).toHaveLength(2)
    expect(await pidsOf(request(callId, startedAt, { wave: 2, cwd: temp.dir }))).toEqual(pids)
  })

  it("never returns the host or its ancestors, even when they carry the marker", async () => {
    const callId = newCallId()
    const startedAt = processClock.now()
    const host = startShell("sleep 30 & wait", { callId })
    const all = await settle(() => pidsOf(request(callId, startedAt)), 2)
    const hosted = createProcessLocator({ hostPid: host.pid as number })
    const pids = (await hosted.locate(request(callId, startedAt))).map((p) => p.pid)
    expect(all).toContain(host.pid)
    expect(pids).not.toContain(host.pid)
    // Its marked child is the call's, not the host's.
    expect(pids).toHaveLength(1)
    expect(hostLineage(host.pid as number)).toEqual(new Set([host.pid, process.pid, ...hostLineage(process.pid)]))
  })

  it("the process clock and process start times agree: a process spawned after now() is inside the window", async () => {
    for (let i = 0; i < 20; i++) {
      const now = processClock.now()
      const child = startShell("exec sleep 5")
      const info = readProcess(child.pid as number)
      expect(info?.startedAt).toBeGreaterThanOrEqual(now)
      child.kill("SIGKILL")
    }
  })
})

describe("wave 2: processes whose command lives in the call's directory", () => {
  it("adds an unmarked, detached holder from the call's directory; never other directories, other calls or jobs", async () => {
    const callId = newCallId()
    const callDir = path.join(temp.dir, "call")
    const otherDir = path.join(temp.dir, "other")
    for (const dir of [callDir, otherDir]) mkdirSync(dir, { recursive: true })
    const hold = script(callDir, "hold.sh")
    const elsewhere = script(otherDir, "hold.sh")
    const startedAt = processClock.now()
    // Each parent exits at once: the holders are reparented away from the host, as the hang class leaves them.
    startShell(`sh ${hold} & exit 0`, { cwd: callDir })
    startShell(`sh ${elsewhere} & exit 0`, { cwd: callDir })
    startShell(`sh ${hold} & exit 0`, { cwd: callDir, callId: `${callId}_another` })
    startShell(`sh ${hold} & exit 0`, { cwd: callDir, env: { [JOB_ID_VAR]: "job_it" } })
    // Settled once each holder's sleep has exec'd (until then the forked child still reads as the script).
    const settled = () => {
      const table = readProcessTable()
      const scripts = table.filter((p) => p.cmdline.join(" ").endsWith("hold.sh") && p.startedAt >= startedAt)
      const holders = scripts.filter((p) => !scripts.some((parent) => parent.pid === p.ppid))
      const running = holders.filter((h) => table.some((p) => p.ppid === h.pid && p.comm === "sleep"))
      return running.length === scripts.length ? running.map((p) => p.pid) : []
    }
    const holders = await settle(settled, 4)
    expect(holders).toHaveLength(4)
    expect(await pidsOf(request(callId, startedAt, { cwd: callDir, command: "sh ./hold.sh" }))).toEqual([])
    const wave2 = await locator.locate(request(callId, startedAt, { wave: 2, cwd: callDir, command: "sh ./hold.sh" }))
    expect(wave2).toHaveLength(1)
    expect(wave2[0]).toMatchObject({ marked: false, command: `sh ${hold}` })
    // The same holder through the command's first path-like token, from a call that ran elsewhere.
    const byToken = await locator.locate(request(callId, startedAt, { wave: 2, cwd: temp.dir, command: `sh ${hold} &` }))
    expect(byToken.map((p) => p.pid)).toEqual(wave2.map((p) => p.pid))
    // Not created inside the window: never.
    expect(await pidsOf(request(callId, processClock.now() + 1, { wave: 2, cwd: callDir }))).toEqual([])
  })

  it("the call's directories: its cwd and the directory of the first path-like token, never a system bin folder", () => {
    expect(commandDirectories("node hang.js", "/work/app")).toEqual(["/work/app"])
    expect(commandDirectories("FOO=1 sh ./scripts/hold.sh --fast", "/work/app")).toEqual(["/work/app", "/work/app/scripts"])
    expect(commandDirectories("'/opt/tools/run' x", undefined)).toEqual(["/opt/tools"])
    expect(commandDirectories("/usr/bin/python3 x.py", "/work/app")).toEqual(["/work/app"])
    expect(commandDirectories("sh ./x.sh", undefined)).toEqual([])
    expect(commandDirectories(`ls ${temp.dir}`, "/work/app")).toEqual(["/work/app", temp.dir])
  })

  it("a process's command paths: its executable and its script, resolved against its cwd", () => {
    const file = script(temp.dir, "paths.sh")
    expect(commandPaths({ pid: -1, cwd: temp.dir, cmdline: ["sh", "paths.sh", "arg"] })).toEqual([file])
    expect(commandPaths({ pid: -1, cwd: temp.dir, cmdline: ["./tool", "-v", "300"] })).toEqual([path.join(temp.dir, "tool")])
    expect(commandPaths({ pid: -1, cwd: null, cmdline: ["sleep", "300"] })).toEqual([])
  })
})
