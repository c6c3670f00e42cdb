// The watchdog ledger's storage checks, driver-agnostic: run under Node (sqlite3) by watchdog.ledger.test.ts and
// under opencode's Bun (bun:sqlite) by ledger.bun.ts.
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { openSqliteDriver } from "../../../adapters/storage/sqlite.driver"
import { lazyWatchdogLedger, openWatchdogLedger } from "../../../adapters/storage/watchdog.ledger.repository"
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

  async "behind a ready gate the ledger opens after the host migrated, without migrating itself"() {
    const dir = mkdtempSync(path.join(tmpdir(), "forge-ledger-"))
    try {
      const order: string[] = []
      const ledger = lazyWatchdogLedger(dir, {
        ready: async () => {
          order.push("ready")
          await (await openWatchdogLedger(dir)).close()
        },
      })
      await ledger.append(entry(1))
      check(JSON.stringify(order) === JSON.stringify(["ready"]), `ready ran ${order.length} time(s)`)
      await ledger.append(entry(2))
      check(order.length === 1, "ready ran again")
      check((await ledger.list()).length === 2, "entries missing")
      await ledger.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },

  async "the lazy ledger creates the workspace database on its first append only"() {
    const dir = mkdtempSync(path.join(tmpdir(), "forge-ledger-"))
    try {
      const ledger = lazyWatchdogLedger(dir)
      check(ledger.file === path.join(dir, ".opencode", "forge", "forge.db"), `file is ${ledger.file}`)
      check(!existsSync(ledger.file), "opened before the first append")
      await ledger.append(entry(1))
      check(existsSync(ledger.file), "no database after the first append")
      check((await ledger.list()).length === 1, "the entry is not there")
      await ledger.close()
      let refused = false
      await ledger.append(entry(2)).catch(() => (refused = true))
      check(refused, "a closed ledger accepted an append")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
}
