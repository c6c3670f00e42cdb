// The watchdog end to end with real processes: the service over the /proc locator, the tree killer, the SQLite
// ledger and a real timer, with a lowered stall budget. A shell call whose background child holds its output pipe
// (the hang class the builtin shell suffers) must come back once the watchdog kills the holder.
import { type ChildProcess, spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest"
import { isAlive } from "../../../adapters/process/proc.table"
import { createProcessLocator, processClock } from "../../../adapters/process/process.locator"
import { createProcessKiller } from "../../../adapters/process/watchdog.tree.kill"
import { type WatchdogLedgerStore, openWatchdogLedger } from "../../../adapters/storage/watchdog.ledger.repository"
import { WATCHDOG_MARK_VAR } from "../../../services/watchdog/watchdog.ports"
import { WatchdogService } from "../../../services/watchdog/watchdog.service"
import type { WatchdogSettings } from "../../../services/watchdog/watchdog.settings"
import { intervalTicker } from "../../../src/watchdog/watchdog.lazy"
import { memoryLogger } from "../plan/plan.helpers"
import { janitor, makeTempDir, newCallId, settle, sleep, startShell } from "./watchdog.helpers"

const temp = makeTempDir()
afterAll(() => temp.remove())

let ledger: WatchdogLedgerStore
let service: WatchdogService | undefined
let counter = 0
beforeEach(async () => {
  counter += 1
  ledger = await openWatchdogLedger({ file: path.join(temp.dir, `ledger-${counter}.db`) })
})
afterEach(async () => {
  await service?.dispose()
  service = undefined
  await ledger.close()
  janitor.cleanup()
})

function watchdog(settings: Partial<WatchdogSettings>): WatchdogService {
  service = new WatchdogService({
    settings: { mode: "kill", stallMs: 1_000, observeMs: 60_000, tickMs: 100, ...settings },
    clock: processClock,
    ticker: intervalTicker,
    locator: createProcessLocator(),
    killer: createProcessKiller({ graceMs: 500 }),
    ledger,
    log: memoryLogger(),
  })
  return service
}

/** Runs `script` the way the builtin shell does: bash -c, output piped, done when the pipes close. */
function shellCall(script: string, env: Record<string, string>): { child: ChildProcess; closed: Promise<number> } {
  const child = spawn("bash", ["-c", script], { cwd: temp.dir, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true })
  if (child.pid !== undefined) janitor.add(child.pid)
  child.stdout?.resume()
  child.stderr?.resume()
  const began = Date.now()
  const closed = new Promise<number>((resolve) => child.once("close", () => resolve(Date.now() - began)))
  return { child, closed }
}

const within = <T>(promise: Promise<T>, ms: number) => Promise.race([promise, sleep(ms).then(() => "timed out" as const)])

const markedPids = async (callId: string) =>
  (await createProcessLocator().locate({ callId, wave: 1, startedAt: 0, cwd: undefined, command: "" })).map((p) => p.pid)
/** The background holder of a call, once its shell has exited (before that the shell still carries the marker). */
const holdersOf = async (callId: string) => {
  const found = await createProcessLocator().locate({ callId, wave: 1, startedAt: 0, cwd: undefined, command: "" })
  return found.length > 0 && found.every((p) => p.command === "sleep 300") ? found.map((p) => p.pid) : []
}

describe("a stalled builtin shell call", () => {
  it("kill mode: the holder of the output pipe is killed at the budget and the call returns", async () => {
    const w = watchdog({ mode: "kill", stallMs: 1_500 })
    const callId = newCallId()
    expect(w.callStarted({ callId, sessionId: "ses_1", agent: "forge", tool: "bash", command: "sleep 300 & echo started" })).toBe(true)
    const env = w.markerEnv({ callId, cwd: temp.dir })
    const call = shellCall("sleep 300 & echo started", env)
    const holders = await settle(() => holdersOf(callId), 1)
    const elapsed = await within(call.closed, 10_000)
    expect(elapsed).not.toBe("timed out")
    expect(elapsed).toBeGreaterThanOrEqual(1_400)
    // The pipe closes as soon as the holder dies; the killer's verification may still be running.
    await w.flush()
    expect(w.watchOf(callId)).toMatchObject({ place: "observing", survivors: [] })
    w.callEnded(callId)
    const entries = await ledger.list()
    expect(entries.map((e) => e.kind)).toEqual(["warn", "kill"])
    expect(entries[1]?.pids).toEqual(expect.arrayContaining(holders))
    expect(holders.filter(isAlive)).toEqual([])
    expect(await markedPids(callId)).toEqual([])
  }, 15_000)

  it("dry-run: lists the exact processes it would kill and leaves the call hanging", async () => {
    const w = watchdog({ mode: "dry-run", stallMs: 800 })
    const callId = newCallId()
    w.callStarted({ callId, sessionId: "ses_1", agent: "forge-coder", tool: "bash", command: "sleep 300 & echo started" })
    const call = shellCall("sleep 300 & echo started", w.markerEnv({ callId, cwd: temp.dir }))
    const holders = await settle(() => holdersOf(callId), 1)
    expect(await within(call.closed, 2_000)).toBe("timed out")
    await w.flush()
    const entries = await ledger.list()
    expect(entries.map((e) => e.kind)).toEqual(["warn", "dry-run"])
    expect(entries[1]?.pids).toEqual(holders)
    expect(holders.every(isAlive)).toBe(true)
  }, 10_000)

  it("no marker (the shell environment hook never fired): the holder is found by directory and only recorded", async () => {
    writeFileSync(path.join(temp.dir, "hold.sh"), "sleep 300; true\n")
    const w = watchdog({ mode: "kill", stallMs: 800 })
    const callId = newCallId()
    const command = "sh ./hold.sh & exit 0"
    w.callStarted({ callId, sessionId: "ses_1", agent: "forge", tool: "bash", command, cwd: temp.dir })
    // Started without the marker the hook would have added.
    const call = shellCall(command, {})
    const [holder] = await settle(
      async () => (await createProcessLocator().locate({ callId, wave: 2, startedAt: 0, cwd: temp.dir, command })).map((p) => p.pid),
      1,
    )
    expect(await within(call.closed, 2_000)).toBe("timed out")
    await w.flush()
    const entries = await ledger.list()
    expect(entries.map((e) => e.kind)).toEqual(["warn", "degraded"])
    expect(entries[1]?.pids).toEqual([holder])
    expect(isAlive(holder as number)).toBe(true)
  }, 10_000)

  it("another agent's call and mode off are never stamped, timed or killed", async () => {
    const w = watchdog({ mode: "kill", stallMs: 300 })
    const callId = newCallId()
    expect(w.callStarted({ callId, sessionId: "ses_1", agent: "build", tool: "bash", command: "sleep 300" })).toBe(false)
    const env = w.markerEnv({ callId, cwd: temp.dir })
    expect(env).toEqual({})
    const stray = startShell("sleep 300; true", { env })
    const off = watchdog({ mode: "off", stallMs: 300 })
    const offCall = newCallId()
    expect(off.callStarted({ callId: offCall, sessionId: "ses_1", agent: "forge", tool: "bash", command: "sleep 300" })).toBe(false)
    expect(off.markerEnv({ callId: offCall, cwd: temp.dir })).toEqual({})
    await sleep(800)
    await w.flush()
    expect(isAlive(stray.pid as number)).toBe(true)
    expect(await ledger.list()).toEqual([])
    expect(process.env[WATCHDOG_MARK_VAR]).toBeUndefined()
    await w.dispose()
  }, 10_000)
})
