import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterEach, beforeEach, expect, it } from "vitest"
import { type AnyMachineSnapshot, type AnyStateMachine, setup } from "xstate"
import { type LifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { LifecycleHost } from "../../../services/lifecycle/lifecycle.host"
import type { LifecycleInspection } from "../../../services/lifecycle/lifecycle.inspection"
import { memoryLogger } from "../plan/plan.helpers"

// The host tells its inspection (the `inspect` option) of every instance's snapshots: a birth, each step, and the
// instances restored from the database, so an inspector that connects to a restarted process sees the live ones.

const lampMachine = setup({
  types: { context: {} as { owner: string }, input: {} as { owner: string }, events: {} as { type: "lamp.toggle" } },
}).createMachine({
  id: "lamp",
  context: ({ input }) => ({ owner: input.owner }),
  initial: "off",
  states: { off: { on: { "lamp.toggle": "on" } }, on: { on: { "lamp.toggle": "off" } } },
})

let dir: string
let store: LifecycleStore
beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "forge-inspection-"))
  store = await openLifecycleStore(dir)
})
afterEach(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

function hostSeenBy(seen: string[]) {
  const inspection: LifecycleInspection = {
    snapshot: (machine: AnyStateMachine, instanceId: string, snapshot: AnyMachineSnapshot) =>
      void seen.push(`${machine.id}:${instanceId} ${String(snapshot.value)}`),
  }
  const host = new LifecycleHost({ repository: async () => store.repository, clock: { now: () => 1_000 }, log: memoryLogger(), inspection })
  const lifecycle = host.define({
    machine: lampMachine,
    implementations: { actions: {} },
    explain: () => "no",
    metaOf: (snapshot) => ({ sessionId: snapshot.context.owner, document: null }),
  })
  return { host, lifecycle }
}

it("inspects every birth and step, and every instance a restarted host restores", async () => {
  const seen: string[] = []
  const first = hostSeenBy(seen)
  await first.lifecycle.create("a", { owner: "s1" })
  await first.lifecycle.dispatch("a", { type: "lamp.toggle" })
  first.lifecycle.send("a", { type: "lamp.toggle" })
  await first.host.idle()
  expect(seen).toEqual(["lamp:a off", "lamp:a on", "lamp:a off"])

  const after: string[] = []
  const second = hostSeenBy(after)
  const record = await store.repository.getSnapshot("lamp", "a")
  if (record === undefined) throw new Error("no record")
  second.lifecycle.restore(record)
  expect(after).toEqual(["lamp:a off"])
})
