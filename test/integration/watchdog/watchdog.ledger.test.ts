// The watchdog ledger in SQLite: bounded at 200, shared by connections, opened lazily — on sqlite3 under Node and
// on bun:sqlite inside opencode's Bun. Bad rows and bad entries fail with a message that names them.
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { openSqliteDriver } from "../../../adapters/storage/sqlite.driver"
import { openWatchdogLedger } from "../../../adapters/storage/watchdog.ledger.repository"
import { entry, ledgerChecks } from "./ledger.checks"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")

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
      expect(await driver.all("SELECT count(*), min(call_id), max(id) FROM watchdog_ledger")).toEqual([[200, "call_100", 230]])
      await driver.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("rejects an invalid entry before storing it, and names a corrupt row when reading", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "forge-ledger-"))
    try {
      const file = path.join(dir, "forge.db")
      const ledger = await openWatchdogLedger({ file })
      await expect(ledger.append(entry(1, { kind: "shout" as never }))).rejects.toThrow(/invalid watchdog ledger entry \(append\)[\s\S]*kind/)
      expect(await ledger.list()).toEqual([])
      const driver = await openSqliteDriver(file)
      await driver.run("INSERT INTO watchdog_ledger (at, kind, pids, message) VALUES (1, 'warn', 'oops', 'x')")
      await driver.close()
      await expect(ledger.list()).rejects.toThrow(/watchdog_ledger row 1: pids is not JSON: oops/)
      await ledger.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

it("passes every ledger check on bun:sqlite inside opencode's Bun", () => {
  const result = spawnSync(path.join(root, "node_modules/opencode-linux-x64/bin/opencode"), ["test/integration/watchdog/ledger.bun.ts"], {
    cwd: root,
    env: { ...process.env, BUN_BE_BUN: "1" },
    encoding: "utf8",
    timeout: 25_000,
  })
  const output = `${result.stdout}\n${result.stderr}`
  expect(result.status, output).toBe(0)
  expect(output).toContain(`LEDGER passed=${Object.keys(ledgerChecks).length} failed=0`)
}, 30_000)
