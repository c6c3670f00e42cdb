import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { assign, setup } from "xstate"
import { type LifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import { LifecycleHost } from "../../../services/lifecycle/lifecycle.host"
import { memoryLogger } from "../plan/plan.helpers"

// The kernel's rebirth (a loop restarted where it ended): a finished instance starts again under its own id, from
// its finished snapshot, through the birth gate, over a real SQLite database, in the process that ended it or in a
// new one that has only its record.

const tallyMachine = setup({
  types: {
    context: {} as { owner: string; count: number; lives: number },
    input: {} as { owner: string } | { again: { owner: string; count: number; lives: number }; ended: string },
    events: {} as { type: "tally.add" } | { type: "tally.stop" } | { type: "tally.finish" },
  },
  guards: {
    // Born again only from `stopped`: a finished tally is history.
    isRebirthOfStopped: ({ context }) => context.lives > 1 && context.owner !== "history",
    isNew: ({ context }) => context.lives === 1,
  },
  actions: {
    add: assign({ count: ({ context }) => context.count + 1 }),
    greet: () => {
      throw new Error("tally action greet not provided")
    },
  },
}).createMachine({
  id: "tally",
  version: "1",
  context: ({ input }) =>
    "again" in input
      ? { ...input.again, owner: input.ended === "finished" ? "history" : input.again.owner, lives: input.again.lives + 1 }
      : { owner: input.owner, count: 0, lives: 1 },
  initial: "born",
  states: {
    born: { always: [{ guard: "isNew", target: "counting" }, { guard: "isRebirthOfStopped", target: "counting" }, { target: "refused" }] },
    refused: { type: "final" },
    counting: {
      entry: "greet",
      on: { "tally.add": { actions: "add" }, "tally.stop": { target: "stopped" }, "tally.finish": { target: "finished" } },
    },
    stopped: { type: "final" },
    finished: { type: "final" },
  },
})

describe("a lifecycle's rebirth", () => {
  let dir: string
  let store: LifecycleStore
  const greeted: string[] = []

  const hostWith = (shared: boolean) => {
    const host = new LifecycleHost({ repository: async () => store.repository, clock: { now: () => 1_000 }, log: memoryLogger() })
    const lifecycle = host.define({
      machine: tallyMachine,
      implementations: { actions: { greet: async ({ context }) => void greeted.push(`${context.owner} (life ${context.lives})`) } },
      explain: (_, event) => `the tally refuses ${event.type}`,
      birthRefusal: (snapshot) => (snapshot.matches("refused") ? `a ${snapshot.context.owner} tally does not start again` : null),
      metaOf: (snapshot) => ({ sessionId: snapshot.context.owner, document: null }),
      shared,
    })
    return { host, lifecycle }
  }
  const again = (ended: { value: unknown; context: { owner: string; count: number; lives: number } }) => ({
    again: ended.context,
    ended: String(ended.value),
  })

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "forge-rebirth-"))
    store = await openLifecycleStore(dir)
    greeted.length = 0
  })
  afterEach(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  for (const shared of [false, true]) {
    it(`starts a finished instance again under its own id, from its snapshot, its row going on from the final state (${shared ? "shared" : "one process"})`, async () => {
      const { host, lifecycle } = hostWith(shared)
      await lifecycle.create("t", { owner: "ann" })
      await lifecycle.dispatch("t", { type: "tally.add" })
      await lifecycle.dispatch("t", { type: "tally.stop" })
      const born = await lifecycle.rebirth("t", "tally.again", again)
      expect(born.value).toBe("counting")
      expect(born.context).toEqual({ owner: "ann", count: 1, lives: 2 })
      expect(greeted).toEqual(["ann (life 1)", "ann (life 2)"])
      await lifecycle.dispatch("t", { type: "tally.add" })
      await host.idle()
      const rows = await store.repository.listTransitions({ instanceId: "t" })
      expect(rows.map((r) => `${r.from} --${r.event}--> ${r.to}`)).toEqual([
        "(none) --xstate.init--> counting",
        "counting --tally.add--> counting",
        "counting --tally.stop--> stopped",
        "stopped --tally.again--> counting",
        "counting --tally.add--> counting",
      ])
      const row = await store.repository.getSnapshot("tally", "t")
      expect(row?.terminal).toBe(false)
      expect(row?.snapshot).toMatchObject({ context: { count: 2, lives: 2 } })
    })

    it(`refuses through the birth gate, changing nothing; a live or unknown instance is not reborn (${shared ? "shared" : "one process"})`, async () => {
      const { lifecycle } = hostWith(shared)
      await lifecycle.create("done", { owner: "bob" })
      await lifecycle.dispatch("done", { type: "tally.finish" })
      await expect(lifecycle.rebirth("done", "tally.again", again)).rejects.toThrow(
        new GateRefusal("tally", "xstate.init", "a history tally does not start again"),
      )
      expect(lifecycle.snapshot("done")?.value).toBe("finished")
      expect((await store.repository.getSnapshot("tally", "done"))?.state).toBe("finished")
      expect(await store.repository.listTransitions({ instanceId: "done" })).toHaveLength(2)
      expect(greeted).toEqual(["bob (life 1)"])

      await lifecycle.create("live", { owner: "cy" })
      await expect(lifecycle.rebirth("live", "tally.again", again)).rejects.toThrow("tally live still runs: only a finished instance starts again")
      await expect(lifecycle.rebirth("nobody", "tally.again", again)).rejects.toThrow("unknown tally nobody")
    })
  }

  it("a new process with only the record starts it again (shared: decided on the latest committed record)", async () => {
    const first = hostWith(true)
    await first.lifecycle.create("t", { owner: "dee" })
    await first.lifecycle.dispatch("t", { type: "tally.stop" })
    await first.host.idle()
    // The next process restores no finished instance: only its record is left.
    const next = hostWith(true)
    expect(next.lifecycle.snapshot("t")).toBeUndefined()
    const born = await next.lifecycle.rebirth("t", "tally.again", again)
    expect(born.context).toEqual({ owner: "dee", count: 0, lives: 2 })
    expect((await store.repository.getSnapshot("tally", "t"))?.state).toBe("counting")
  })
})
