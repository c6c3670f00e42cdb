// The watchdog on the one lifecycle host: its watches live on the host it is given (beside the plan and the jobs),
// and they stay in memory — a real workspace database holds no watchdog record, however far a watch went.
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { watchdogMachine } from "../../../machines/watchdog/watchdog.machine"
import { LifecycleHost } from "../../../services/lifecycle/lifecycle.host"
import { MemoryWatchdogLedger } from "../../../services/watchdog/watchdog.ledger"
import { WatchdogService } from "../../../services/watchdog/watchdog.service"
import { FakeKiller, FakeLocator, FakeTicker, SETTINGS, T0, forgeCall, proc, silentLogger } from "../../unit/watchdog/watchdog.fakes"
import { makeTempDir } from "./watchdog.helpers"

const temp = makeTempDir()
afterAll(() => temp.remove())

describe("the watchdog lifecycle on the workspace's host", () => {
  it("keeps its watches on the given host, memory only: the database records nothing of them", async () => {
    const store = await openLifecycleStore({ file: path.join(temp.dir, "forge.db") })
    try {
      let now = T0
      const clock = { now: () => now }
      const log = silentLogger()
      const host = new LifecycleHost({ repository: async () => store.repository, clock, log })
      const locator = new FakeLocator()
      const killer = new FakeKiller()
      const ledger = new MemoryWatchdogLedger()
      const service = new WatchdogService({ settings: SETTINGS, clock, ticker: new FakeTicker(), locator, killer, ledger, log, host })

      // The host holds the watchdog lifecycle now: a second one cannot be defined beside it.
      expect(() =>
        host.define({ machine: watchdogMachine, implementations: { actions: {} }, explain: () => "", metaOf: () => ({ sessionId: null, document: null }) }),
      ).toThrow(/lifecycle watchdog is already defined/)

      expect(service.callStarted(forgeCall())).toBe(true)
      locator.marked.add("call_1")
      locator.answers.set("call_1", { 1: [proc(7, 1)] })
      for (const at of [SETTINGS.stallMs * 0.8, SETTINGS.stallMs]) {
        now = T0 + at
        await service.tick()
        await service.flush()
      }
      expect(service.watchOf("call_1")?.place).toBe("observing")
      expect(killer.kills).toEqual([[{ pid: 7, startedAt: T0 + 1 }]])
      expect(service.callEnded("call_1")).toBe(true)
      await service.dispose()
      await host.idle()

      expect((await ledger.list()).map((entry) => entry.kind)).toEqual(["warn", "kill"])
      expect(await store.repository.loadSnapshots({ machineId: "watchdog" })).toEqual([])
      expect(await store.repository.listTransitions({ machineId: "watchdog" })).toEqual([])
    } finally {
      await store.close()
    }
  })
})
