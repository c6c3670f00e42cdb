import { describe, expect, it } from "vitest"
import { createActor, getNextSnapshot, initialTransition } from "xstate"
import { STALL_FLOOR_MS, isObservationOverAt, isStallDueAt, isWarnDueAt, withinCallWindow } from "../../../machines/watchdog/watchdog.gates"
import {
  type Candidate,
  type LedgerKind,
  type WatchdogEvent,
  type WatchdogInput,
  watchdogMachine,
  watchdogPlaceOf,
} from "../../../machines/watchdog/watchdog.machine"

const T0 = 1_700_000_000_000
const input: WatchdogInput = {
  callId: "call_1",
  sessionId: "ses_1",
  command: "node hang.js",
  startedAt: T0,
  stallMs: 600_000,
  observeMs: 60_000,
  mode: "kill",
}
const WARN_AT = T0 + 480_000
const STALL_AT = T0 + 600_000

const tick = (now: number): WatchdogEvent => ({ type: "watchdog.tick", now })
const located = (wave: 1 | 2, candidates: Candidate[]): WatchdogEvent => ({ type: "locate.done", wave, candidates })
/** Created before the call: never the call's doing. */
const before: Candidate = { pid: 77, startedAt: T0 - 1 }
const atStart: Candidate = { pid: 101, startedAt: T0 }
const during: Candidate = { pid: 102, startedAt: T0 + 5_000 }

type Call = { locate: 1 | 2 } | { kill: number[] } | { ledger: LedgerKind }

/** A watchdog actor whose effects are recorders. */
function watch(overrides: Partial<WatchdogInput> = {}) {
  const calls: Call[] = []
  const machine = watchdogMachine.provide({
    actions: {
      requestLocate: (_, { wave }) => void calls.push({ locate: wave }),
      requestKill: (_, { pids }) => void calls.push({ kill: [...pids] }),
      ledger: (_, { kind }) => void calls.push({ ledger: kind }),
    },
  })
  const actor = createActor(machine, { input: { ...input, ...overrides } }).start()
  const send = (...events: WatchdogEvent[]) => {
    for (const event of events) actor.send(event)
    // The live states sit inside "watching": tests read the innermost state name.
    const snapshot = actor.getSnapshot()
    return { ...snapshot, value: watchdogPlaceOf(snapshot.value), can: snapshot.can.bind(snapshot), hasTag: snapshot.hasTag.bind(snapshot) }
  }
  const ledger = () => calls.flatMap((c) => ("ledger" in c ? [c.ledger] : []))
  const kills = () => calls.flatMap((c) => ("kill" in c ? [c.kill] : []))
  return { actor, calls, send, ledger, kills }
}

describe("timing", () => {
  it("mode off is final at once and times nothing", () => {
    const w = watch({ mode: "off" })
    expect(watchdogPlaceOf(w.actor.getSnapshot().value)).toBe("off")
    expect(w.actor.getSnapshot().status).toBe("done")
    // The actor has stopped; its snapshot takes no tick and no location either.
    for (const event of [tick(WARN_AT), tick(STALL_AT), located(1, [during])]) expect(w.actor.getSnapshot().can(event)).toBe(false)
    expect(w.calls).toEqual([])
  })

  it("warns at exactly 80 % of stallMs, not before, and only once", () => {
    const w = watch()
    expect(w.send(tick(WARN_AT - 1)).value).toBe("timing")
    expect(w.calls).toEqual([])
    expect(w.send(tick(WARN_AT)).value).toBe("warned")
    expect(w.send(tick(WARN_AT + 1), tick(STALL_AT - 1)).value).toBe("warned")
    expect(w.calls).toEqual([{ ledger: "warn" }])
    expect(w.actor.getSnapshot().hasTag("timing")).toBe(true)
  })

  it("the warning threshold is exact for a stall budget whose 80 % is not a whole number", () => {
    const w = watch({ stallMs: STALL_FLOOR_MS + 2 }) // 80 % = 48001.6 ms
    expect(w.send(tick(T0 + 48_001)).value).toBe("timing")
    expect(w.send(tick(T0 + 48_002)).value).toBe("warned")
  })
})

describe("kill mode, marker seen", () => {
  const stalled = () => {
    const w = watch()
    w.send({ type: "marker.seen" }, tick(WARN_AT), tick(STALL_AT))
    return w
  }

  it("at stallMs locates wave 1", () => {
    const w = stalled()
    expect(watchdogPlaceOf(w.actor.getSnapshot().value)).toBe("locating")
    expect(w.actor.getSnapshot().context).toMatchObject({ wave: 1, actedAt: STALL_AT })
    expect(w.calls).toEqual([{ ledger: "warn" }, { locate: 1 }])
  })

  it("kills exactly the candidates inside the call window, never one started before the call", () => {
    const w = stalled()
    const killing = w.send(located(1, [before, atStart, during]))
    expect(killing.value).toBe("killing")
    expect(killing.context.candidates).toEqual([101, 102])
    expect(w.kills()).toEqual([[101, 102]])
    expect(w.ledger()).toEqual(["warn", "kill"])
  })

  it("kill.done → observing; call.end → finished", () => {
    const w = stalled()
    w.send(located(1, [during]))
    const observing = w.send({ type: "kill.done", at: STALL_AT + 100, survivors: [] })
    expect(observing.value).toBe("observing")
    expect(observing.context).toMatchObject({ actedAt: STALL_AT + 100, survivors: [] })
    const finished = w.send({ type: "call.end", at: STALL_AT + 200 })
    expect(finished.value).toBe("finished")
    expect(finished.status).toBe("done")
    expect(w.ledger()).toEqual(["warn", "kill"])
  })

  it("without call.end after observeMs it tries wave 2, and after a second observation says unresolved", () => {
    const w = stalled()
    w.send(located(1, [during]), { type: "kill.done", at: STALL_AT + 100, survivors: [102] })
    expect(w.send(tick(STALL_AT + 60_099)).value).toBe("observing")
    const wave2 = w.send(tick(STALL_AT + 60_100))
    expect(wave2.value).toBe("locating")
    expect(wave2.context).toMatchObject({ wave: 2, candidates: [] })
    w.send(located(2, [before, { pid: 103, startedAt: T0 + 600_050 }]), { type: "kill.done", at: STALL_AT + 60_200, survivors: [] })
    expect(w.send(tick(STALL_AT + 120_199)).value).toBe("observing")
    expect(w.send(tick(STALL_AT + 120_200)).value).toBe("unresolved")
    expect(w.calls).toEqual([
      { ledger: "warn" },
      { locate: 1 },
      { kill: [102] },
      { ledger: "kill" },
      { locate: 2 },
      { kill: [103] },
      { ledger: "kill" },
      { ledger: "unresolved" },
    ])
  })

  it("wave 1 with no candidate inside the window goes to wave 2 directly; wave 2 empty is unresolved", () => {
    const w = stalled()
    const wave2 = w.send(located(1, [before]))
    expect(wave2.value).toBe("locating")
    expect(wave2.context.wave).toBe(2)
    expect(w.send(located(2, [])).value).toBe("unresolved")
    expect(w.calls).toEqual([{ ledger: "warn" }, { locate: 1 }, { locate: 2 }, { ledger: "unresolved" }])
    expect(w.kills()).toEqual([])
  })
})

describe("recording instead of killing", () => {
  it("dry-run records the in-window candidates and never requests a kill", () => {
    const w = watch({ mode: "dry-run" })
    const dry = w.send({ type: "marker.seen" }, tick(WARN_AT), tick(STALL_AT), located(1, [before, during]))
    expect(dry.value).toBe("dryRun")
    expect(dry.context.candidates).toEqual([102])
    expect(w.send(tick(STALL_AT + 59_999)).value).toBe("dryRun")
    expect(w.send(tick(STALL_AT + 60_000)).value).toBe("unresolved")
    expect(w.ledger()).toEqual(["warn", "dry-run", "unresolved"])
    expect(w.kills()).toEqual([])
  })

  it("a marker never seen degrades kill mode to a dry-run record, in either wave", () => {
    const first = watch()
    const degraded = first.send(tick(WARN_AT), tick(STALL_AT), located(1, [during]))
    expect(degraded.value).toBe("dryRun")
    expect(degraded.context.candidates).toEqual([102])
    expect(first.ledger()).toEqual(["warn", "degraded"])
    expect(first.kills()).toEqual([])

    const second = watch()
    second.send(tick(WARN_AT), tick(STALL_AT), located(1, []), located(2, [during]))
    expect(watchdogPlaceOf(second.actor.getSnapshot().value)).toBe("dryRun")
    expect(second.ledger()).toEqual(["warn", "degraded"])
    expect(second.kills()).toEqual([])
  })
})

describe("call.end", () => {
  it("finishes the watch from every non-final state", () => {
    const end: WatchdogEvent = { type: "call.end", at: T0 + 1 }
    const paths: WatchdogEvent[][] = [
      [],
      [tick(WARN_AT)],
      [tick(WARN_AT), tick(STALL_AT)],
      [{ type: "marker.seen" }, tick(WARN_AT), tick(STALL_AT), located(1, [during])],
      [{ type: "marker.seen" }, tick(WARN_AT), tick(STALL_AT), located(1, [during]), { type: "kill.done", at: STALL_AT, survivors: [] }],
      [tick(WARN_AT), tick(STALL_AT), located(1, [during])],
      [tick(WARN_AT), tick(STALL_AT), located(1, []), located(2, [])],
    ]
    const states = new Set<string>()
    for (const events of paths) {
      const w = watch()
      const last = w.send(...events)
      states.add(String(last.value))
      expect(last.status).toBe("active")
      expect(last.can(end)).toBe(true)
      const finished = w.send(end)
      expect(finished.value).toBe("finished")
      expect(finished.status).toBe("done")
    }
    expect([...states].sort()).toEqual(["dryRun", "killing", "locating", "observing", "timing", "unresolved", "warned"])
  })

  // call.end and marker.seen belong to the live states only: a finished watchdog accepts nothing, even through the
  // pure API a gate or a registry would use.
  it("a final watchdog accepts nothing", () => {
    const [off] = initialTransition(watchdogMachine, { ...input, mode: "off" })
    expect(off.can({ type: "call.end", at: T0 })).toBe(false)
    expect(getNextSnapshot(watchdogMachine, off, { type: "call.end", at: T0 }).value).toBe("off")
  })
})

describe("gate predicates", () => {
  it("thresholds are inclusive and the window starts at the call", () => {
    expect(isWarnDueAt({ now: 480, startedAt: 0, stallMs: 600 })).toBe(true)
    expect(isWarnDueAt({ now: 479, startedAt: 0, stallMs: 600 })).toBe(false)
    expect(isStallDueAt({ now: 600, startedAt: 0, stallMs: 600 })).toBe(true)
    expect(isStallDueAt({ now: 599, startedAt: 0, stallMs: 600 })).toBe(false)
    expect(isObservationOverAt({ now: 160, actedAt: 100, observeMs: 60 })).toBe(true)
    expect(isObservationOverAt({ now: 159, actedAt: 100, observeMs: 60 })).toBe(false)
    expect(withinCallWindow(T0, [before, atStart, during])).toEqual([101, 102])
  })
})
