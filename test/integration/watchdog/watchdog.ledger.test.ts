// The watchdog ledger in SQLite (the "watchdog" ledger of the ledger_entries table): bounded at 200, shared by
// connections, opened lazily, migrated from the old watchdog_ledger table — on sqlite3 under Node and on bun:sqlite
// inside opencode's Bun. A bad entry fails with a message that names it; a bad row is reported by id and skipped.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { runUnderOpencodeBun } from "../../bun.script"
import { openSqliteDriver } from "../../../adapters/storage/sqlite.driver"
import { openWatchdogLedger } from "../../../adapters/storage/watchdog.ledger.repository"
import { entry, ledgerChecks } from "./ledger.checks"

describe("watchdog ledger on sqlite3", () => {
  for (const [name, body] of Object.entries(ledgerChecks)) it(name, body)

  it("never holds more than 200 rows", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "forge-ledger-"))
    try {
      const file = path.join(dir, "forge.db")
      const ledger = await openWatchdogLedger({ file })
      for (let i = 0; i < 230; i++) await ledger.append(entry(i))
      await ledger.close()
      const driver = await openSqliteDriver(file)
      expect(await driver.all("SELECT count(*), min(subject), max(id) FROM ledger_entries WHERE ledger = 'watchdog'")).toEqual([[200, "call_100", 230]])
      await driver.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("rejects an invalid entry before storing it, and names a corrupt row when reading, still reading the others", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "forge-ledger-"))
    try {
      const file = path.join(dir, "forge.db")
      const problems: string[] = []
      const ledger = await openWatchdogLedger({ file }, { report: (problem) => problems.push(problem) })
      await expect(ledger.append(entry(1, { kind: "shout" as never }))).rejects.toThrow(/invalid watchdog ledger entry \(append\)[\s\S]*kind/)
      expect(await ledger.list()).toEqual([])
      const driver = await openSqliteDriver(file)
      await driver.run("INSERT INTO ledger_entries (ledger, kind, at, entry) VALUES ('watchdog', 'warn', 1, '{\"pids\": oops')")
      await driver.run("INSERT INTO ledger_entries (ledger, kind, at, entry) VALUES ('watchdog', 'warn', 1, ?)", [
        JSON.stringify({ ...entry(2), pids: "oops" }),
      ])
      await driver.close()
      await ledger.append(entry(3))
      expect((await ledger.list()).map((e) => e.callId)).toEqual(["call_3"])
      expect(problems).toHaveLength(2)
      expect(problems[0]).toMatch(/ledger_entries row 1 \(watchdog\): entry is not JSON: \{"pids": oops/)
      expect(problems[1]).toMatch(/watchdog ledger row 2:[\s\S]*pids/)
      await ledger.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

it("passes every ledger check on bun:sqlite inside opencode's Bun", () => {
  const { status, output } = runUnderOpencodeBun("test/integration/watchdog/ledger.bun.ts")
  expect(status, output).toBe(0)
  expect(output).toContain(`LEDGER passed=${Object.keys(ledgerChecks).length} failed=0`)
}, 30_000)
