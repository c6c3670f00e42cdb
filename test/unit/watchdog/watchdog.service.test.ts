import { describe, expect, it } from "vitest"
import { MemoryWatchdogLedger, WATCHDOG_LEDGER_LIMIT } from "../../../services/watchdog/watchdog.ledger"
import { WATCHDOG_MARK_VAR } from "../../../services/watchdog/watchdog.ports"
import { WatchdogService } from "../../../services/watchdog/watchdog.service"
import { FakeKiller, FakeLocator, FakeTicker, SETTINGS, T0, forgeCall, harness, proc, silentLogger } from "./watchdog.fakes"

const WARN = 480_000
const STALL = 600_000

describe("which calls are watched", () => {
  it("non-forge agents' shells are untouched: no marker, no timing, no kill, no ledger", async () => {
    const h = harness()
    for (const agent of ["build", "plan", "forgery", undefined]) {
      expect(h.service.callStarted(forgeCall(`call_${agent}`, { agent }))).toBe(false)
      expect(h.service.markerEnv({ callId: `call_${agent}`, cwd: "/work" })).toEqual({})
    }
    expect(h.ticker.timers).toEqual([])
    await h.at(STALL * 2)
    expect(h.locator.requests).toEqual([])
    expect(h.locator.markerScans).toBe(0)
    expect(h.killer.kills).toEqual([])
    expect(await h.kinds()).toEqual([])
  })

  it("only the builtin shell tools of the forge family (forge and forge-* workers)", () => {
    const h = harness()
    expect(h.service.callStarted(forgeCall("a", { tool: "read" }))).toBe(false)
    expect(h.service.callStarted(forgeCall("b", { tool: "forge_shell" }))).toBe(false)
    expect(h.service.callStarted(forgeCall("c", { tool: "bash" }))).toBe(true)
    expect(h.service.callStarted(forgeCall("d", { tool: "shell", agent: "forge-coder" }))).toBe(true)
    expect(h.service.list().map((w) => w.callId)).toEqual(["c", "d"])
  })

  it("mode off never times: no watch, no timer, no marker", async () => {
    const h = harness({ mode: "off" })
    expect(h.service.callStarted(forgeCall())).toBe(false)
    expect(h.service.markerEnv({ callId: "call_1", cwd: "/work" })).toEqual({})
    expect(h.ticker.timers).toEqual([])
    await h.at(STALL * 2)
    expect(await h.kinds()).toEqual([])
  })
})

describe("timing", () => {
  it("stamps the marker on a watched call and learns the directory it runs in", () => {
    const h = harness()
    h.service.callStarted(forgeCall())
    expect(h.service.markerEnv({ callId: "call_1", cwd: "/work/app" })).toEqual({ [WATCHDOG_MARK_VAR]: "call_1" })
    expect(h.service.watchOf("call_1")).toMatchObject({ cwd: "/work/app", place: "timing", startedAt: T0, markerSeen: false })
    // shell.env without a call id (a user `!` command, a PTY) is never stamped.
    expect(h.service.markerEnv({ cwd: "/work/app" })).toEqual({})
  })

  it("one scanner timer at the configured interval, started by the first watch and stopped with the last", () => {
    const h = harness({ tickMs: 1_000 })
    h.service.callStarted(forgeCall("a"))
    h.service.callStarted(forgeCall("b"))
    expect(h.ticker.timers.map((t) => t.ms)).toEqual([1_000])
    h.service.callEnded("a")
    expect(h.ticker.live()).toHaveLength(1)
    h.service.callEnded("b")
    expect(h.ticker.live()).toHaveLength(0)
    expect(h.service.callEnded("b")).toBe(false)
  })

  it("warns at 80 % of the stall budget, once, and sends nothing else", async () => {
    const h = harness()
    h.service.callStarted(forgeCall())
    await h.at(WARN - 1)
    expect(await h.kinds()).toEqual([])
    await h.at(WARN)
    await h.at(WARN + 10_000)
    expect(h.service.watchOf("call_1")?.place).toBe("warned")
    const [warn] = await h.ledger.list()
    expect(warn).toMatchObject({ kind: "warn", callId: "call_1", sessionId: "ses_1", command: "node hang.js", pids: [], at: T0 + WARN })
    expect(warn?.message).toMatch(/has run 480 s of its 600 s stall budget/)
    expect(await h.kinds()).toEqual(["warn"])
    expect(h.locator.requests).toEqual([])
  })

  it("a call that returns in time leaves nothing behind", async () => {
    const h = harness()
    h.service.callStarted(forgeCall())
    await h.at(WARN)
    expect(h.service.callEnded("call_1")).toBe(true)
    await h.at(STALL * 3)
    expect(h.service.list()).toEqual([])
    expect(await h.kinds()).toEqual(["warn"])
    expect(h.killer.kills).toEqual([])
  })
})

describe("acting at the stall budget", () => {
  it("kill mode with the marker seen: locates wave 1 in the call's window and kills exactly those trees", async () => {
    const h = harness()
    h.service.callStarted(forgeCall())
    h.service.markerEnv({ callId: "call_1", cwd: "/work/app" })
    h.locator.marked.add("call_1")
    h.locator.answers.set("call_1", { 1: [proc(4242, 10), proc(99, -5)] })
    await h.at(1_000)
    expect(h.service.watchOf("call_1")?.markerSeen).toBe(true)
    await h.at(WARN)
    await h.at(STALL)
    expect(h.locator.requests).toEqual([{ callId: "call_1", wave: 1, startedAt: T0, cwd: "/work/app", command: "node hang.js" }])
    // 99 was created before the call: never a target.
    expect(h.killer.kills).toEqual([[{ pid: 4242, startedAt: T0 + 10 }]])
    expect(h.service.watchOf("call_1")).toMatchObject({ place: "observing", candidates: [4242], survivors: [] })
    const entries = await h.ledger.list()
    expect(entries.map((e) => e.kind)).toEqual(["warn", "kill"])
    expect(entries[1]).toMatchObject({ pids: [4242], at: T0 + STALL })
    expect(entries[1]?.message).toMatch(/killing the process trees of 4242 \(wave 1/)
    // The killed call returns: the watch is over.
    expect(h.service.callEnded("call_1")).toBe(true)
    expect(h.service.list()).toEqual([])
  })

  it("the marker found by the first locate counts as seen (no tick caught it)", async () => {
    const h = harness()
    h.service.callStarted(forgeCall())
    h.locator.answers.set("call_1", { 1: [proc(4242, 10)] })
    await h.at(WARN)
    await h.at(STALL)
    expect(h.killer.kills).toEqual([[{ pid: 4242, startedAt: T0 + 10 }]])
    expect(await h.kinds()).toEqual(["warn", "kill"])
  })

  it("when the call still has not returned, a second wave after the observation, then unresolved", async () => {
    const h = harness()
    h.service.callStarted(forgeCall())
    h.locator.marked.add("call_1")
    h.locator.answers.set("call_1", { 1: [proc(4242, 10)], 2: [proc(4242, 10), proc(5150, 2_000, false)] })
    h.killer.survivors = [4242]
    await h.at(WARN)
    await h.at(STALL)
    await h.at(STALL + 59_000)
    expect(h.locator.requests.map((r) => r.wave)).toEqual([1])
    await h.at(STALL + 60_000)
    expect(h.locator.requests.map((r) => r.wave)).toEqual([1, 2])
    expect(h.killer.kills.at(-1)).toEqual([
      { pid: 4242, startedAt: T0 + 10 },
      { pid: 5150, startedAt: T0 + 2_000 },
    ])
    await h.at(STALL + 120_000)
    expect(h.service.watchOf("call_1")?.place).toBe("unresolved")
    const entries = await h.ledger.list()
    expect(entries.map((e) => e.kind)).toEqual(["warn", "kill", "kill", "unresolved"])
    expect(entries[3]).toMatchObject({ pids: [4242] })
    expect(entries[3]?.message).toMatch(/has not returned 60 s after the kill \(survivors: 4242\)/)
    // Unresolved is diagnostics only: more time does nothing more.
    await h.at(STALL * 5)
    expect(h.killer.kills).toHaveLength(2)
    expect(await h.kinds()).toHaveLength(4)
  })

  it("nothing in wave 1 goes straight to wave 2; nothing there either is an honest unresolved", async () => {
    const h = harness()
    h.service.callStarted(forgeCall())
    h.locator.marked.add("call_1")
    await h.at(WARN)
    await h.at(STALL)
    expect(h.locator.requests.map((r) => r.wave)).toEqual([1, 2])
    expect(h.killer.kills).toEqual([])
    const entries = await h.ledger.list()
    expect(entries.map((e) => e.kind)).toEqual(["warn", "unresolved"])
    expect(entries[1]?.message).toMatch(/no process of it was found in either wave/)
  })

  it("dry-run lists the exact processes it would kill and kills nothing", async () => {
    const h = harness({ mode: "dry-run" })
    h.service.callStarted(forgeCall())
    h.locator.marked.add("call_1")
    h.locator.answers.set("call_1", { 1: [proc(4242, 10), proc(4243, 20)] })
    await h.at(WARN)
    await h.at(STALL)
    expect(h.killer.kills).toEqual([])
    const entries = await h.ledger.list()
    expect(entries.map((e) => e.kind)).toEqual(["warn", "dry-run"])
    expect(entries[1]).toMatchObject({ pids: [4242, 4243] })
    expect(entries[1]?.message).toMatch(/would kill the process trees of 4242, 4243/)
    expect(entries[0]?.message).toMatch(/listed \(dry-run\)/)
    await h.at(STALL + 60_000)
    expect(await h.kinds()).toEqual(["warn", "dry-run", "unresolved"])
  })

  it("a marker that never appears degrades kill mode to a record: inference alone never kills", async () => {
    const h = harness()
    h.service.callStarted(forgeCall())
    // No shell.env, no marked process; wave 2 finds a process by directory only.
    h.locator.answers.set("call_1", { 2: [proc(5150, 2_000, false)] })
    await h.at(WARN)
    await h.at(STALL)
    expect(h.locator.markerScans).toBeGreaterThan(0)
    expect(h.killer.kills).toEqual([])
    const entries = await h.ledger.list()
    expect(entries.map((e) => e.kind)).toEqual(["warn", "degraded"])
    expect(entries[1]).toMatchObject({ pids: [5150] })
    expect(entries[1]?.message).toMatch(/never carried the watchdog marker/)
  })

  it("a call that returns while its processes are being located is not killed", async () => {
    const h = harness()
    h.service.callStarted(forgeCall())
    h.locator.marked.add("call_1")
    h.locator.answers.set("call_1", { 1: [proc(4242, 10)] })
    await h.at(WARN)
    h.setNow(STALL)
    await h.service.tick()
    expect(h.service.watchOf("call_1")?.place).toBe("locating")
    h.service.callEnded("call_1")
    await h.service.flush()
    expect(h.killer.kills).toEqual([])
    expect(await h.kinds()).toEqual(["warn"])
  })

  it("watches are independent: one call's stall does not touch another", async () => {
    const h = harness()
    h.service.callStarted(forgeCall("old"))
    h.locator.marked.add("old")
    h.locator.answers.set("old", { 1: [proc(1001, 10)] })
    await h.at(WARN)
    h.service.callStarted(forgeCall("new"))
    await h.at(STALL)
    expect(h.killer.kills).toEqual([[{ pid: 1001, startedAt: T0 + 10 }]])
    expect(h.service.watchOf("new")?.place).toBe("timing")
  })
})

describe("ledger", () => {
  it("is bounded at 200 entries, the oldest rotated out", async () => {
    const h = harness()
    for (let i = 0; i < WATCHDOG_LEDGER_LIMIT + 5; i++) h.service.callStarted(forgeCall(`call_${i}`))
    await h.at(WARN)
    const entries = await h.ledger.list()
    expect(WATCHDOG_LEDGER_LIMIT).toBe(200)
    expect(entries).toHaveLength(200)
    expect(entries[0]?.callId).toBe("call_5")
    expect(entries.at(-1)?.callId).toBe("call_204")
  })

  it("config fallbacks are ledgered", async () => {
    const h = harness()
    h.service.recordConfigFallbacks(['option watchdog.mode: "loud" is invalid; using the default "kill"'])
    await h.service.flush()
    expect(await h.ledger.list()).toEqual([
      {
        at: T0,
        kind: "config-fallback",
        callId: null,
        sessionId: null,
        command: null,
        pids: [],
        message: 'option watchdog.mode: "loud" is invalid; using the default "kill"',
      },
    ])
  })

  it("a failing ledger write is logged and does not stop the watchdog", async () => {
    const ticker = new FakeTicker()
    const locator = new FakeLocator()
    const killer = new FakeKiller()
    const log = silentLogger()
    let now = T0
    const broken = new MemoryWatchdogLedger()
    broken.append = async () => {
      throw new Error("disk full")
    }
    const service = new WatchdogService({ settings: SETTINGS, clock: { now: () => now }, ticker, locator, killer, ledger: broken, log })
    service.callStarted(forgeCall())
    locator.marked.add("call_1")
    locator.answers.set("call_1", { 1: [proc(7, 1)] })
    now = T0 + WARN
    await service.tick()
    now = T0 + STALL
    await service.tick()
    await service.flush()
    expect(killer.kills).toHaveLength(1)
    expect(log.lines.filter((l) => l.includes("ledger write failed: disk full"))).toHaveLength(2)
  })

  it("rejects an entry that breaks the schema, naming the field", async () => {
    const ledger = new MemoryWatchdogLedger()
    await expect(ledger.append({ at: T0, kind: "warn", callId: "c", sessionId: "s", command: null, pids: [-1], message: "x" })).rejects.toThrow(/pids/)
  })
})

describe("dispose", () => {
  it("stops every watch and the timer; later calls are not watched", async () => {
    const h = harness()
    h.service.callStarted(forgeCall())
    await h.service.dispose()
    expect(h.ticker.live()).toEqual([])
    expect(h.service.list()).toEqual([])
    expect(h.service.callStarted(forgeCall("after"))).toBe(false)
    await h.at(STALL)
    expect(await h.kinds()).toEqual([])
  })
})
