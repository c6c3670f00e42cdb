// Killing located trees with real processes: the group, descendants and marked escapees; a process that ignores
// SIGTERM; a pid that no longer is the located process; the host.
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { isAlive, readProcess } from "../../../adapters/process/proc.table"
import { createProcessLocator, processClock } from "../../../adapters/process/process.locator"
import { killProcessTrees } from "../../../adapters/process/watchdog.tree.kill"
import { janitor, makeTempDir, newCallId, settle, startShell } from "./watchdog.helpers"

const temp = makeTempDir()
afterAll(() => temp.remove())
afterEach(() => janitor.cleanup())

const locator = createProcessLocator()
const locate = async (callId: string, startedAt: number) => locator.locate({ callId, wave: 1, startedAt, cwd: undefined, command: "" })

describe("killProcessTrees", () => {
  it("kills a call's whole tree, setsid escapee included, and reports no survivors", async () => {
    const callId = newCallId()
    const startedAt = processClock.now()
    startShell("sleep 30 & setsid sleep 30 & sh -c 'sleep 30; true' & wait", { callId })
    await settle(async () => (await locate(callId, startedAt)).map((p) => p.pid), 5)
    const located = await locate(callId, startedAt)
    expect(located.length).toBeGreaterThanOrEqual(5)
    // Every located process is a target, as the watchdog asks: the escapee is one of them, found by its marker.
    const report = await killProcessTrees(
      located.map(({ pid, startedAt }) => ({ pid, startedAt })),
      { graceMs: 500 },
    )
    expect(report.survivors).toEqual([])
    for (const { pid } of located) expect(isAlive(pid)).toBe(false)
    expect(report.killed).toEqual(expect.arrayContaining(located.map((p) => p.pid)))
  })

  it("takes the descendants of a target even when only the leader is named", async () => {
    const callId = newCallId()
    const startedAt = processClock.now()
    const leader = startShell("sleep 30 & sleep 30 & wait", { callId })
    const pids = await settle(async () => (await locate(callId, startedAt)).map((p) => p.pid), 3)
    const info = readProcess(leader.pid as number)
    const report = await killProcessTrees([{ pid: leader.pid as number, startedAt: info?.startedAt ?? 0 }], { graceMs: 500 })
    expect(report.survivors).toEqual([])
    expect(pids.filter(isAlive)).toEqual([])
  })

  it("SIGKILLs what ignores SIGTERM once the grace is over", async () => {
    const callId = newCallId()
    const startedAt = processClock.now()
    // An ignored signal stays ignored across exec: the sleep ignores SIGTERM too.
    startShell("trap '' TERM; sleep 30 & wait", { callId })
    await settle(async () => (await locate(callId, startedAt)).map((p) => p.pid), 2)
    const located = await locate(callId, startedAt)
    const begin = Date.now()
    const report = await killProcessTrees(located, { graceMs: 300 })
    expect(Date.now() - begin).toBeGreaterThanOrEqual(300)
    expect(report.survivors).toEqual([])
    for (const { pid } of located) expect(isAlive(pid)).toBe(false)
  })

  it("leaves a pid alone when it is no longer the process that was located, and never touches the host", async () => {
    const other = startShell("sleep 30")
    const info = readProcess(other.pid as number)
    expect(info).not.toBeNull()
    const stale = await killProcessTrees([{ pid: other.pid as number, startedAt: (info?.startedAt ?? 0) - 10 }], { graceMs: 100 })
    expect(stale).toEqual({ killed: [], survivors: [] })
    expect(isAlive(other.pid as number)).toBe(true)
    const host = await killProcessTrees([{ pid: other.pid as number, startedAt: info?.startedAt ?? 0 }], { graceMs: 100, hostPid: other.pid as number })
    expect(host).toEqual({ killed: [], survivors: [] })
    expect(isAlive(other.pid as number)).toBe(true)
    const self = readProcess(process.pid)
    // The calling process is the default host: never signalled, even when named.
    await killProcessTrees([{ pid: process.pid, startedAt: self?.startedAt ?? 0 }], { graceMs: 100 })
    expect(isAlive(process.pid)).toBe(true)
  })
})

describe("the host's own shells go last", () => {
  it("a shell whose hung child was killed exits with its own status, not by a signal", async () => {
    const callId = newCallId()
    const startedAt = processClock.now()
    const shell = startShell("sleep 30; exit 7", { callId })
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => shell.once("exit", (code, signal) => resolve({ code, signal })))
    await settle(async () => (await locate(callId, startedAt)).map((p) => p.pid), 2)
    const report = await killProcessTrees(await locate(callId, startedAt), { graceMs: 500 })
    expect(report.survivors).toEqual([])
    expect(await exited).toEqual({ code: 7, signal: null })
  })

  it("a shell that is itself the hung process is signalled once it had its chance", async () => {
    const callId = newCallId()
    const startedAt = processClock.now()
    const shell = startShell("exec sleep 30", { callId })
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => shell.once("exit", (code, signal) => resolve({ code, signal })))
    await settle(async () => (await locate(callId, startedAt)).filter((p) => p.command === "sleep 30").map((p) => p.pid), 1)
    const report = await killProcessTrees(await locate(callId, startedAt), { graceMs: 500, settleMs: 200 })
    expect(report.survivors).toEqual([])
    expect(await exited).toEqual({ code: null, signal: "SIGTERM" })
  })
})
