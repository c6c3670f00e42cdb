import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { assign, setup } from "xstate"
import { type LifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import type { Implementations } from "../../../services/lifecycle/lifecycle.definition"
import { LifecycleHost } from "../../../services/lifecycle/lifecycle.host"
import { restoreLive } from "../../../services/lifecycle/lifecycle.restore.live"
import { memoryLogger } from "../plan/plan.helpers"

// The kernel every lifecycle shares, over a real SQLite database: effects declared by a machine and supplied by
// the harness, awaited and immediate steps, quiet events, retention, and the one restore path.

const counterMachine = setup({
  types: {
    context: {} as { owner: string; count: number; limit: number },
    input: {} as { owner: string; limit: number },
    events: {} as { type: "count.add"; by: number } | { type: "count.noise" } | { type: "count.finish" },
  },
  guards: {
    hasRoom: ({ context }) => context.limit > 0,
    isUnderLimit: ({ context, event }) => event.type === "count.add" && context.count + event.by <= context.limit,
  },
  actions: {
    add: assign({ count: ({ context, event }) => context.count + (event.type === "count.add" ? event.by : 0) }),
    announce: (_, _params: { what: string }) => {
      throw new Error("counter action announce not provided")
    },
  },
}).createMachine({
  id: "counter",
  version: "3",
  context: ({ input }) => ({ ...input, count: 0 }),
  initial: "born",
  states: {
    // The birth gate: a counter with no room is refused before it exists.
    born: { always: [{ guard: "hasRoom", target: "counting" }, { target: "refused" }] },
    refused: { type: "final" },
    counting: {
      entry: { type: "announce", params: { what: "started" } },
      on: {
        "count.add": { guard: "isUnderLimit", actions: ["add", { type: "announce", params: ({ context }) => ({ what: `at ${context.count}` }) }] },
        "count.noise": { actions: "add" },
        "count.finish": { target: "finished" },
      },
    },
    finished: { type: "final" },
  },
})

type CounterMachine = typeof counterMachine

describe("the lifecycle host", () => {
  let dir: string
  let store: LifecycleStore
  let now: number
  const announced: string[] = []
  let failNext = false

  const implementations = {
    actions: {
      announce: async ({ context }, { what }: { what: string }) => {
        if (failNext) {
          failNext = false
          throw new Error(`cannot announce ${what}`)
        }
        announced.push(`${context.owner}: ${what}`)
      },
    },
  } satisfies Implementations<CounterMachine>

  const hostWith = (
    extra: {
      quietEvents?: string[]
      retention?: { keep: number; every: number }
      persist?: boolean
      shared?: boolean
      birthRefusal?: (snapshot: { value: unknown; context: { owner: string } }) => string | null
    } = {},
  ) => {
    const host = new LifecycleHost({ repository: async () => store.repository, clock: { now: () => now }, log: memoryLogger() })
    const lifecycle = host.define({
      machine: counterMachine,
      implementations,
      explain: (snapshot, event) =>
        `the counter of ${snapshot.context.owner} refuses ${event.type}: it is at ${snapshot.context.count} of ${snapshot.context.limit}`,
      metaOf: (snapshot) => ({ sessionId: snapshot.context.owner, document: null }),
      ...extra,
    })
    return { host, lifecycle }
  }

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "forge-kernel-"))
    store = await openLifecycleStore(dir)
    now = 1_000
    announced.length = 0
    failNext = false
  })
  afterEach(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it("runs the machine's declared effects with their params, once, and commits each step with its transition row", async () => {
    const { host, lifecycle } = hostWith()
    await lifecycle.create("a", { owner: "s1", limit: 5 })
    await lifecycle.dispatch("a", { type: "count.add", by: 2 })
    await host.idle()
    expect(announced).toEqual(["s1: started", "s1: at 2"])
    const rows = await store.repository.listTransitions({ instanceId: "a" })
    expect(rows.map((r) => `${r.from} --${r.event}--> ${r.to}`)).toEqual(["(none) --xstate.init--> counting", "counting --count.add--> counting"])
    expect((await store.repository.getSnapshot("counter", "a"))?.snapshot).toMatchObject({ context: { count: 2 } })
    expect((await store.repository.getSnapshot("counter", "a"))?.machineVersion).toBe("3")
  })

  it("refuses with the lifecycle's own words, and a failed effect leaves the actor and the database as they were", async () => {
    const { lifecycle } = hostWith()
    await lifecycle.create("a", { owner: "s1", limit: 3 })
    await expect(lifecycle.dispatch("a", { type: "count.add", by: 4 })).rejects.toThrow(
      new GateRefusal("counter", "count.add", "the counter of s1 refuses count.add: it is at 0 of 3"),
    )
    failNext = true
    await expect(lifecycle.dispatch("a", { type: "count.add", by: 1 })).rejects.toThrow(/cannot announce at 1/)
    expect(lifecycle.snapshot("a")?.context.count).toBe(0)
    expect((await store.repository.listTransitions({ instanceId: "a" })).length).toBe(1)
  })

  it("a birth the lifecycle's birth gate refuses is never created: no effect, no record", async () => {
    for (const shared of [false, true]) {
      const { lifecycle } = hostWith({
        shared,
        birthRefusal: (snapshot) => (snapshot.value === "refused" ? `a counter for ${snapshot.context.owner} needs room` : null),
      })
      expect(lifecycle.birth({ owner: "s1", limit: 2 }).value).toBe("counting")
      const refusal = new GateRefusal("counter", "xstate.init", "a counter for s1 needs room")
      expect(() => lifecycle.birth({ owner: "s1", limit: 0 })).toThrow(refusal)
      await expect(lifecycle.create(`z${shared}`, { owner: "s1", limit: 0 })).rejects.toThrow(refusal)
      expect(lifecycle.has(`z${shared}`)).toBe(false)
      expect(await store.repository.getSnapshot("counter", `z${shared}`)).toBeUndefined()
      expect(await store.repository.listTransitions({ instanceId: `z${shared}` })).toEqual([])
      expect(announced).toEqual([])
    }
  })

  it("without a birth gate every birth stands, one born finished included", async () => {
    const { lifecycle } = hostWith()
    const born = await lifecycle.create("z", { owner: "s1", limit: 0 })
    expect(born.value).toBe("refused")
    expect((await store.repository.getSnapshot("counter", "z"))?.terminal).toBe(true)
  })

  it("send moves at once, records nothing for a refused event or a quiet one that kept the state, and queues the rest", async () => {
    const { host, lifecycle } = hostWith({ quietEvents: ["count.noise"] })
    lifecycle.start("a", { owner: "s1", limit: 3 })
    const seen: number[] = []
    lifecycle.subscribe("a", (s) => seen.push(s.context.count))
    expect(lifecycle.send("a", { type: "count.add", by: 2 }).context.count).toBe(2)
    expect(lifecycle.send("a", { type: "count.add", by: 9 }).context.count).toBe(2)
    lifecycle.send("a", { type: "count.noise" })
    const finished = lifecycle.waitFor("a", (s) => s.status === "done")
    lifecycle.send("a", { type: "count.finish" })
    await finished
    await host.idle()
    expect(seen).toEqual([2, 2, 2])
    const rows = await store.repository.listTransitions({ instanceId: "a" })
    expect(rows.map((r) => r.event)).toEqual(["xstate.init", "count.add", "count.finish"])
    expect((await store.repository.getSnapshot("counter", "a"))?.terminal).toBe(true)
  })

  it("prunes terminal records beyond the kept number after every few finished instances", async () => {
    const { host, lifecycle } = hostWith({ retention: { keep: 2, every: 3 } })
    for (const id of ["a", "b", "c", "d"]) {
      now += 10
      lifecycle.start(id, { owner: id, limit: 1 })
      lifecycle.send(id, { type: "count.finish" })
    }
    await host.idle()
    await lifecycle.prune()
    const left = await store.repository.loadSnapshots({ machineId: "counter" })
    expect(left.map((r) => r.instanceId).sort()).toEqual(["c", "d"])
  })

  it("an effect of an immediate step that throws at once is logged, never thrown into the host", async () => {
    const log = memoryLogger()
    const host = new LifecycleHost({ repository: async () => store.repository, clock: { now: () => now }, log })
    const lifecycle = host.define({
      machine: counterMachine,
      implementations: {
        actions: {
          announce: () => {
            throw new Error("the announcer is gone")
          },
        },
      } satisfies Implementations<CounterMachine>,
      explain: () => "no",
      metaOf: () => ({ sessionId: null, document: null }),
    })
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => void unhandled.push(reason)
    process.on("unhandledRejection", onUnhandled)
    try {
      lifecycle.start("a", { owner: "s1", limit: 3 })
      expect(lifecycle.send("a", { type: "count.add", by: 1 }).context.count).toBe(1)
      await host.idle()
      await new Promise((resolve) => setTimeout(resolve, 20))
    } finally {
      process.off("unhandledRejection", onUnhandled)
    }
    expect(unhandled).toEqual([])
    expect(log.lines.filter((l) => l.includes("the announcer is gone"))).toHaveLength(2)
  })

  it("a lifecycle that does not persist writes nothing", async () => {
    const { host, lifecycle } = hostWith({ persist: false })
    lifecycle.start("a", { owner: "s1", limit: 3 })
    lifecycle.send("a", { type: "count.add", by: 1 })
    await host.idle()
    expect(await store.repository.listTransitions({})).toEqual([])
  })

  it("restores a fitting record without effects or records, and reports one that does not fit, never throwing", async () => {
    const first = hostWith()
    await first.lifecycle.create("a", { owner: "s1", limit: 5 })
    await first.lifecycle.dispatch("a", { type: "count.add", by: 3 })
    const record = await store.repository.getSnapshot("counter", "a")
    if (record === undefined) throw new Error("no record")
    announced.length = 0
    const second = hostWith()
    const restored = second.lifecycle.restore(record)
    expect(restored.kind).toBe("restored")
    expect(second.lifecycle.snapshot("a")?.context.count).toBe(3)
    expect(second.lifecycle.can("a", { type: "count.add", by: 2 })).toBe(true)
    expect(second.lifecycle.can("a", { type: "count.add", by: 3 })).toBe(false)
    expect(announced).toEqual([])
    expect(second.lifecycle.restore({ ...record, instanceId: "old", machineVersion: "2" })).toEqual({
      kind: "unfit",
      problem: "counter old: written by version 2 of the counter machine; this is version 3",
    })
    expect(second.lifecycle.restore({ ...record, instanceId: "bad", snapshot: { value: "nowhere", context: {} } })).toMatchObject({
      kind: "unfit",
      problem: expect.stringMatching(/^counter bad: snapshot does not fit the counter machine/),
    })
    expect(second.lifecycle.restore({ ...record, instanceId: "empty", snapshot: null })).toMatchObject({
      kind: "unfit",
      problem: "counter empty: persisted snapshot has no value or context",
    })
    expect(second.lifecycle.has("old") || second.lifecycle.has("bad") || second.lifecycle.has("empty")).toBe(false)
  })

  it("restoreLive brings back every live record once, and a follow-up that throws is reported without stopping the rest", async () => {
    const first = hostWith()
    for (const id of ["a", "b", "c", "done"]) await first.lifecycle.create(id, { owner: id, limit: 5 })
    await first.lifecycle.dispatch("done", { type: "count.finish" })
    const second = hostWith()
    const running = await store.repository.getSnapshot("counter", "c")
    if (running === undefined) throw new Error("no record")
    second.lifecycle.restore(running)
    const followed: string[] = []
    const report = await restoreLive(second.lifecycle, store.repository, async (id, snapshot) => {
      followed.push(`${id}=${String(snapshot.value)}`)
      if (id === "a") throw new Error("its file is gone")
    })
    expect(report).toEqual({ restored: ["a", "b"], problems: [{ instanceId: "a", problem: "restored, but its record was not updated: its file is gone" }] })
    expect(followed).toEqual(["a=counting", "b=counting"])
    expect(second.lifecycle.has("a") && second.lifecycle.has("b") && !second.lifecycle.has("done")).toBe(true)
    expect(await restoreLive(second.lifecycle, store.repository)).toEqual({ restored: [], problems: [] })
  })

  it("an upgrade brings an older record to this version, or says why it cannot", async () => {
    const host = new LifecycleHost({ repository: async () => store.repository, clock: { now: () => now }, log: memoryLogger() })
    const lifecycle = host.define({
      machine: counterMachine,
      implementations,
      explain: () => "no",
      metaOf: () => ({ sessionId: null, document: null }),
      upgrade: (persisted, from) => {
        if (from === "1") throw new Error("version 1 counted in another unit")
        return { ...persisted, context: { limit: 10, ...(persisted.context as object) } }
      },
    })
    const base = { machineId: "counter", sessionId: null, state: "counting", terminal: false, document: null, updatedAt: 1 }
    expect(
      lifecycle.restore({ ...base, instanceId: "two", machineVersion: "2", snapshot: { value: "counting", context: { owner: "x", count: 4 } } }).kind,
    ).toBe("restored")
    expect(lifecycle.snapshot("two")?.context).toEqual({ owner: "x", count: 4, limit: 10 })
    expect(lifecycle.restore({ ...base, instanceId: "one", machineVersion: "1", snapshot: { value: "counting", context: {} } })).toEqual({
      kind: "unfit",
      problem: "counter one: written by version 1 of the counter machine, which version 3 cannot take (version 1 counted in another unit)",
    })
  })

  it("a lifecycle's idle waits for the records its immediate steps queued, so a caller can close the database after it", async () => {
    // A slow disk: every commit lands a while after it was queued.
    const slow = new Proxy(store.repository, {
      get: (target, key, receiver) =>
        key === "commit"
          ? async (...args: Parameters<typeof target.commit>) => {
              await new Promise((resolve) => setTimeout(resolve, 50))
              return target.commit(...args)
            }
          : Reflect.get(target, key, receiver),
    })
    const host = new LifecycleHost({ repository: async () => slow, clock: { now: () => now }, log: memoryLogger() })
    const lifecycle = host.define({ machine: counterMachine, implementations, explain: () => "no", metaOf: () => ({ sessionId: null, document: null }) })
    lifecycle.start("a", { owner: "s1", limit: 3 })
    lifecycle.send("a", { type: "count.finish" })
    await lifecycle.idle()
    expect((await store.repository.listTransitions({ instanceId: "a" })).map((r) => r.event)).toEqual(["xstate.init", "count.finish"])
  })

  it("a shared lifecycle takes in another process's commits, asking the database only when its log changed or a while passed", async () => {
    const other = await openLifecycleStore(dir)
    let asked = 0
    const counted = Object.assign(Object.create(store.repository) as typeof store.repository, {
      dataVersion: () => {
        asked++
        return store.repository.dataVersion()
      },
    })
    const define = (repository: typeof store.repository) => {
      const host = new LifecycleHost({ repository: async () => repository, clock: { now: () => now }, log: memoryLogger() })
      const lifecycle = host.define({
        machine: counterMachine,
        implementations,
        shared: true,
        explain: (snapshot, event) => `refuses ${event.type} at ${snapshot.context.count}`,
        metaOf: (snapshot) => ({ sessionId: snapshot.context.owner, document: null }),
      })
      return lifecycle
    }
    try {
      const here = define(counted)
      const there = define(other.repository)
      await here.refresh()
      const first = asked
      for (let i = 0; i < 20; i++) await here.refresh()
      expect(asked, "an unchanged log: no query").toBe(first)
      await there.create("c1", { owner: "ann", limit: 5 })
      await there.dispatch("c1", { type: "count.add", by: 2 })
      await here.refresh()
      expect(asked).toBe(first + 1)
      expect(here.snapshot("c1")?.context.count, "another connection's commit is taken in").toBe(2)
      await here.refresh()
      expect(asked).toBe(first + 1)
      now += 250
      await here.refresh()
      expect(asked, "asked again once a while has passed, in case the file's clock was too coarse").toBe(first + 2)
      // A step decided here starts from the latest record, whatever this process held.
      await there.dispatch("c1", { type: "count.add", by: 1 })
      await here.dispatch("c1", { type: "count.add", by: 1 })
      expect((await store.repository.getSnapshot("counter", "c1"))?.snapshot).toMatchObject({ context: { count: 4 } })
    } finally {
      await other.close()
    }
  })

  it("restoreLive takes up a live record a refresh absorbed before it, follow-up included, and leaves what this process started", async () => {
    const other = await openLifecycleStore(dir)
    const define = (repository: typeof store.repository) =>
      new LifecycleHost({ repository: async () => repository, clock: { now: () => now }, log: memoryLogger() }).define({
        machine: counterMachine,
        implementations,
        shared: true,
        explain: () => "no",
        metaOf: (snapshot) => ({ sessionId: snapshot.context.owner, document: null }),
      })
    try {
      const there = define(other.repository)
      for (const id of ["a", "b", "gone"]) await there.create(id, { owner: id, limit: 5 })
      await there.dispatch("gone", { type: "count.finish" })
      const here = define(store.repository)
      // Another path of this process refreshed first (a hook racing the start): "a" and "b" are known, not restored.
      await here.refresh()
      expect(here.has("a") && here.has("b")).toBe(true)
      await here.create("mine", { owner: "me", limit: 5 })
      const followed: string[] = []
      const report = await restoreLive(here, store.repository, async (id, snapshot) => void followed.push(`${id}=${String(snapshot.value)}`))
      expect(report).toEqual({ restored: ["a", "b"], problems: [] })
      expect(followed).toEqual(["a=counting", "b=counting"])
      expect(await restoreLive(here, store.repository, async (id) => void followed.push(id))).toEqual({ restored: [], problems: [] })
    } finally {
      await other.close()
    }
  })

  it("one host per machine id: defining a lifecycle twice is an error", () => {
    const { host } = hostWith()
    expect(() => host.define({ machine: counterMachine, implementations, explain: () => "", metaOf: () => ({ sessionId: null, document: null }) })).toThrow(
      /lifecycle counter is already defined on this host/,
    )
  })
})
