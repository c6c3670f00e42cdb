// The watchdog ledger's storage checks, driver-agnostic: run under Node (sqlite3) by watchdog.ledger.test.ts and
// under opencode's Bun (bun:sqlite) by ledger.bun.ts.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { openSqliteDriver } from "../../../adapters/storage/sqlite.driver"
import { openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { openWatchdogLedger, sharedWatchdogLedger } from "../../../adapters/storage/watchdog.ledger.repository"
import type { WatchdogLedgerEntry } from "../../../services/watchdog/watchdog.ledger"

export const entry = (i: number, extra: Partial<WatchdogLedgerEntry> = {}): WatchdogLedgerEntry => ({
  at: 1_700_000_000_000 + i,
  kind: "warn",
  callId: `call_${i}`,
  sessionId: "ses_1",
  command: "sleep 300",
  pids: [],
  message: `entry ${i}`,
  ...extra,
})

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(what)
}

export const ledgerChecks: Record<string, () => Promise<void>> = {
  async "keeps the newest 200 entries in order, with every field"() {
    const dir = mkdtempSync(path.join(tmpdir(), "forge-ledger-"))
    try {
      const ledger = await openWatchdogLedger({ file: path.join(dir, "forge.db") })
      await ledger.append(entry(0, { kind: "kill", pids: [4242, 4243], sessionId: null, command: null }))
      for (let i = 1; i < 205; i++) await ledger.append(entry(i))
      const entries = await ledger.list()
      check(entries.length === 200, `expected 200 entries, got ${entries.length}`)
      check(entries[0]?.callId === "call_5" && entries.at(-1)?.callId === "call_204", `wrong window: ${entries[0]?.callId}..${entries.at(-1)?.callId}`)
      await ledger.close()
      const again = await openWatchdogLedger({ file: path.join(dir, "forge.db") })
      await again.append(entry(205, { kind: "dry-run", pids: [7] }))
      const last = (await again.list()).at(-1)
      check(JSON.stringify(last) === JSON.stringify(entry(205, { kind: "dry-run", pids: [7] })), `round trip changed the entry: ${JSON.stringify(last)}`)
      await again.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },

  async "two connections on one file share the ledger"() {
    const dir = mkdtempSync(path.join(tmpdir(), "forge-ledger-"))
    try {
      const file = path.join(dir, "forge.db")
      const a = await openWatchdogLedger({ file })
      const b = await openWatchdogLedger({ file }, { migrate: false })
      await Promise.all([a.append(entry(1)), b.append(entry(2))])
      const ids = (await a.list()).map((e) => e.callId).sort()
      check(JSON.stringify(ids) === JSON.stringify(["call_1", "call_2"]), `got ${JSON.stringify(ids)}`)
      await a.close()
      await b.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },

  async "a write lock held by another connection is waited out from a timer, never by blocking the thread"() {
    const dir = mkdtempSync(path.join(tmpdir(), "forge-ledger-"))
    try {
      const file = path.join(dir, "forge.db")
      const ledger = await openWatchdogLedger({ file })
      // The host's runtime connection, in the middle of a transaction.
      const other = await openSqliteDriver(file)
      await other.exec("BEGIN IMMEDIATE")
      const appended = ledger.append(entry(1))
      const before = Date.now()
      await new Promise((resolve) => setTimeout(resolve, 100))
      const lag = Date.now() - before
      await other.exec("COMMIT")
      await appended
      check(lag < 1000, `a 100 ms timer fired after ${lag} ms: the append blocked the thread`)
      check((await ledger.list()).length === 1, "the append was lost")
      await other.close()
      await ledger.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },

  async "a host's ledger writes through the runtime's shared connection, reached on first use"() {
    const dir = mkdtempSync(path.join(tmpdir(), "forge-ledger-"))
    try {
      let opened = 0
      const store = await openLifecycleStore(dir)
      const ledger = sharedWatchdogLedger(async () => {
        opened += 1
        return store.connection
      })
      check(opened === 0, "reached the connection before the first append")
      await ledger.append(entry(1))
      await ledger.append(entry(2))
      check(opened === 1, `reached the connection ${opened} time(s)`)
      check((await ledger.list()).length === 2, "entries missing")
      await ledger.close()
      let refused = false
      await ledger.append(entry(3)).catch(() => (refused = true))
      check(refused, "a closed ledger accepted an append")
      // The runtime's repository still works on the same connection: the ledger never closed it.
      check((await store.repository.loadSnapshots()).length === 0, "the shared connection is unusable")
      await store.close()
      const reread = await openWatchdogLedger({ file: path.join(dir, ".opencode", "forge", "forge.db") })
      check((await reread.list()).length === 2, "entries did not land in the workspace database")
      await reread.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
}
