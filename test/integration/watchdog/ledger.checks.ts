// The ledger store's checks, driver-agnostic: run under Node (sqlite3) by watchdog.ledger.test.ts and under
// opencode's Bun (bun:sqlite) by ledger.bun.ts. The watchdog ledger, and the migration that moved the old ledgers in.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { openSqliteDriver } from "../../../adapters/storage/sqlite.driver"
import { openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { openLedgerStore } from "../../../adapters/storage/ledger.repository"
import { migrate } from "../../../adapters/storage/migrator"
import { migrations } from "../../../adapters/storage/migrations.generated"
import { openWatchdogLedger, sharedWatchdogLedger } from "../../../adapters/storage/watchdog.ledger.repository"
import { JobLedger, type JobLedgerEntry } from "../../../services/job/job.ledger"
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

  async "the migration moves the old watchdog_ledger rows and per-host job ledger items into the one ledger table, losing nobody's history"() {
    const dir = mkdtempSync(path.join(tmpdir(), "forge-ledger-"))
    try {
      const file = path.join(dir, "forge.db")
      // A database as the previous release left it: migrated up to the key_value table, with both old ledgers.
      const old = await openSqliteDriver(file)
      const before = migrations.findIndex((migration) => migration.tag === "0002_key_value") + 1
      check(before === 3, `expected the old schema to end at migration 3, got ${before}`)
      await migrate(old, migrations.slice(0, before))
      const insertWatchdog = "INSERT INTO watchdog_ledger (at, kind, call_id, session_id, command, pids, message) VALUES (?, ?, ?, ?, ?, ?, ?)"
      await old.run(insertWatchdog, [10, "kill", "call_1", "ses_1", "sleep 300", "[4242,4243]", "killed"])
      await old.run(insertWatchdog, [20, "config-fallback", null, null, null, "[]", "fell back"])
      await old.run(insertWatchdog, [30, "warn", "call_2", "ses_1", "sleep 9", "oops", "torn pids"])
      const job = (at: number, jobId: string, kind: JobLedgerEntry["kind"]): JobLedgerEntry => ({
        at,
        kind,
        jobId,
        sessionId: null,
        command: "sleep 1",
        message: `${kind} ${jobId}`,
      })
      const item = (...entries: JobLedgerEntry[]) => JSON.stringify({ context: { entries }, version: 0 })
      const insertItem = "INSERT INTO key_value (name, value, updated_at) VALUES (?, ?, 1)"
      await old.run(insertItem, ["forge.job-ledger@101.1000.a1", item(job(5, "job_a", "adopted"), job(50, "job_c", "orphaned"))])
      await old.run(insertItem, ["forge.job-ledger@202.2000.b1", item(job(25, "job_b", "containment"))])
      await old.run(insertItem, ["forge.job-ledger@303.3000.c1", "torn{"])
      await old.run(insertItem, ["forge.job-registry@101.1000.a1", JSON.stringify({ context: {}, version: 0 })])
      await old.close()

      const problems: string[] = []
      const watchdog = await openWatchdogLedger({ file }, { report: (problem) => problems.push(problem) })
      const moved = await watchdog.list()
      check(
        JSON.stringify(moved.map((e) => [e.at, e.kind, e.callId, e.sessionId, e.command, e.pids, e.message])) ===
          JSON.stringify([
            [10, "kill", "call_1", "ses_1", "sleep 300", [4242, 4243], "killed"],
            [20, "config-fallback", null, null, null, [], "fell back"],
          ]),
        `watchdog entries: ${JSON.stringify(moved)}`,
      )
      check(problems.length === 1 && /watchdog ledger row 3:[\s\S]*pids/.test(problems[0] ?? ""), `the torn row is reported: ${JSON.stringify(problems)}`)
      await watchdog.close()

      const store = await openLedgerStore({ file }, { migrate: false })
      const jobs = (await new JobLedger(store).entries()).map((e) => `${e.at} ${e.kind} ${e.jobId}`)
      check(JSON.stringify(jobs) === JSON.stringify(["5 adopted job_a", "25 containment job_b", "50 orphaned job_c"]), `job entries: ${JSON.stringify(jobs)}`)
      const bySubject = await store.query({ ledger: "job", subject: "job_b" })
      check(bySubject.length === 1 && bySubject[0]?.kind === "containment", `query by subject: ${JSON.stringify(bySubject)}`)
      await store.close()

      const driver = await openSqliteDriver(file)
      const tables = (await driver.all("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('watchdog_ledger', 'key_value')")).map(
        ([name]) => name,
      )
      check(JSON.stringify(tables) === JSON.stringify(["key_value"]), `tables left: ${JSON.stringify(tables)}`)
      // The moved items are gone; the registry stays, and so does an item that never was JSON.
      const items = (await driver.all("SELECT name FROM key_value ORDER BY name")).map(([name]) => name)
      check(
        JSON.stringify(items) === JSON.stringify(["forge.job-ledger@303.3000.c1", "forge.job-registry@101.1000.a1"]),
        `items left: ${JSON.stringify(items)}`,
      )
      await driver.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
}
