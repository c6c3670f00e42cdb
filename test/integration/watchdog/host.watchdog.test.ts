// The composition root's watchdog: settings from the options and the test seams, fallbacks ledgered in the
// workspace database once the runtime opened it, and the ledger closed with the plugin.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { databasePath } from "../../../adapters/storage/database.path"
import { type LifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { openWatchdogLedger } from "../../../adapters/storage/watchdog.ledger.repository"
import { sharedLedgerStore } from "../../../adapters/storage/ledger.repository"
import { parseForgeOptions } from "../../../services/config/forge.options"
import { TEST_STALL_ENV, TEST_TICK_ENV } from "../../../services/watchdog/watchdog.settings"
import { createHostWatchdog } from "../../../src/watchdog/watchdog.lazy"
import { memoryLogger } from "../plan/plan.helpers"

const dirs: string[] = []
const stores: LifecycleStore[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe("createHostWatchdog", () => {
  it("applies the options and seams, and ledgers every watchdog fallback after the runtime opened the database", async () => {
    const workspace = mkdtempSync(path.join(tmpdir(), "forge-host-watchdog-"))
    dirs.push(workspace)
    const raw = { watchdog: { mode: "loud", stallMs: 90_000 }, jobs: { mode: "turbo" } }
    const order: string[] = []
    const host = createHostWatchdog({
      log: memoryLogger(),
      options: parseForgeOptions(raw).options,
      rawOptions: raw,
      env: { [TEST_STALL_ENV]: "4000", [TEST_TICK_ENV]: "fast" },
      // Stands in for the runtime: opens and migrates the workspace database and hands out its connection.
      ledgers: sharedLedgerStore(async () => {
        order.push("runtime opened")
        const store = await openLifecycleStore(workspace)
        stores.push(store)
        return store.connection
      }),
    })
    expect(host).toBeDefined()
    expect(host?.service.settings).toEqual({ mode: "kill", stallMs: 4_000, observeMs: 60_000, tickMs: 400 })
    await host?.service.flush()
    expect(order).toEqual(["runtime opened"])
    await host?.close()
    for (const store of stores.splice(0)) await store.close()
    const ledger = await openWatchdogLedger({ file: databasePath(workspace) })
    const entries = await ledger.list()
    await ledger.close()
    expect(entries.map((e) => [e.kind, e.message])).toEqual([
      ["config-fallback", expect.stringMatching(/^option watchdog\.mode: "loud" is invalid .*using the default "kill"$/)],
      ["config-fallback", `${TEST_TICK_ENV}="fast" is not an integer of at least 100 ms; ignored`],
    ])
  })

  it("valid options ledger nothing and never open the database", async () => {
    const workspace = mkdtempSync(path.join(tmpdir(), "forge-host-watchdog-"))
    dirs.push(workspace)
    let opened = false
    const host = createHostWatchdog({
      log: memoryLogger(),
      options: parseForgeOptions({ watchdog: { mode: "dry-run" } }).options,
      rawOptions: { watchdog: { mode: "dry-run" } },
      env: {},
      ledgers: sharedLedgerStore(async () => {
        opened = true
        throw new Error("the database must not be opened")
      }),
    })
    expect(host?.service.settings).toEqual({ mode: "dry-run", stallMs: 600_000, observeMs: 60_000, tickMs: 2_000 })
    await host?.close()
    expect(opened).toBe(false)
  })
})
