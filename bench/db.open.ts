// What the health checks cost at start-up: opening the workspace database plainly (driver, pragmas, migrations) against
// openWorkspaceStore (the same plus the file inspection and SQLite's quick_check), on databases of growing size.
// Run: npm run bench:db. Figures are printed, never asserted against timers.

import { mkdtempSync, rmSync, statSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { inspectDatabaseFiles, quickCheck } from "../adapters/storage/database.health"
import { openLifecycleStore } from "../adapters/storage/lifecycle.store"
import { openWorkspaceStore } from "../adapters/storage/workspace.store"
import type { Logger } from "../services/lifecycle/lifecycle.ports"
import { formatTable } from "./bench.stats"

const SIZES = [0, 500, 5_000, 50_000]
const RUNS = 9
const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined }

async function seed(file: string, transitions: number): Promise<void> {
  const store = await openLifecycleStore({ file })
  const snapshot = { value: "draft", context: { pad: "x".repeat(200) } }
  for (let i = 0; i < transitions; i += 500) {
    await store.connection.driver.exec("BEGIN")
    for (let j = i; j < Math.min(i + 500, transitions); j++) {
      await store.connection.driver.run(
        "INSERT INTO transitions (machine_id, instance_id, session_id, from_state, event, to_state, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        ["plan", `p${j % 200}`, "s", "draft", "plan.revise", "draft", j],
      )
    }
    await store.connection.driver.exec("COMMIT")
  }
  await store.repository.saveSnapshot({
    machineId: "plan",
    machineVersion: "1",
    instanceId: "p",
    sessionId: "s",
    state: "draft",
    terminal: false,
    snapshot,
    document: null,
    updatedAt: 1,
  })
  await store.close()
}

async function median(run: () => Promise<void>): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now()
    await run()
    samples.push(performance.now() - start)
  }
  samples.sort((a, b) => a - b)
  const median = samples[Math.floor(samples.length / 2)]
  if (median === undefined) throw new Error("median: no samples were taken")
  return median
}

const rows: string[][] = [["transitions", "file size", "plain open", "inspect files", "quick_check", "openWorkspaceStore"]]
for (const transitions of SIZES) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "forge-bench-db-"))
  const file = path.join(dir, "forge.db")
  try {
    await seed(file, transitions)
    const size = statSync(file).size
    const plain = await median(async () => (await openLifecycleStore({ file })).close())
    const inspect = await median(async () => void (await inspectDatabaseFiles(file)))
    const store = await openLifecycleStore({ file })
    const check = await median(async () => void (await quickCheck(store.connection.driver)))
    await store.close()
    const whole = await median(async () => (await openWorkspaceStore(file, quiet)).store.close())
    rows.push([String(transitions), `${(size / 1024).toFixed(0)} KiB`, ...[plain, inspect, check, whole].map((ms) => `${ms.toFixed(2)} ms`)])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
console.log(`median of ${RUNS} opens, driver sqlite3 (Node)\n${formatTable(rows)}`)
