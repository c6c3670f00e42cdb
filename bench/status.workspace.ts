// The workspace `forgecharts status` reads in the status bench: `count` lifecycles (status.lifecycles.ts) written through
// the real storage (openLifecycleStore: the real migrations, the lifecycle repository's commit, a snapshot and a
// transition row per step), their documents on disk, and driver claims for the live goals and loops: a third held by
// this process (alive while the bench runs), a third by a process that is gone, a third never claimed. Read back and
// checked before any run is timed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { identityOf } from "../adapters/process/process.identity"
import { SqliteDriverClaimStore } from "../adapters/storage/driver.claim.repository"
import { openLifecycleStore } from "../adapters/storage/lifecycle.store"
import { lifecycleRuns } from "./status.lifecycles"

export interface StatusWorkspace {
  dir: string
  database: string
  /** What it holds, as read back: per machine, live and finished; transitions; claims. */
  describe: string
  instances: number
  transitions: number
  seconds: number
  remove(): void
}

/** A claim that lapsed long ago, held by a pid no process has. */
const GONE_HOLDER = "4194303:1"

export async function seedStatusWorkspace(count: number): Promise<StatusWorkspace> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "forge-bench-status-"))
  try {
    const start = performance.now()
    const runs = lifecycleRuns(count)
    const store = await openLifecycleStore(dir)
    const claims = new SqliteDriverClaimStore(store.connection)
    const me = identityOf(process.pid)
    let driven = 0
    try {
      for (const run of runs) {
        for (const { snapshot, transition } of run.steps) await store.repository.commit(snapshot, transition)
        if (run.document !== null) {
          const file = path.join(dir, run.document.path)
          mkdirSync(path.dirname(file), { recursive: true })
          writeFileSync(file, run.document.text)
        }
        if (!run.needsDriver) continue
        const turn = driven++ % 3
        if (turn === 0) continue
        const claim = turn === 1 ? { holder: me, until: Date.now() + 3_600_000 } : { holder: GONE_HOLDER, until: 1 }
        await claims.take(run.machine, run.instanceId, () => claim)
      }
    } finally {
      await store.close()
    }
    const seconds = (performance.now() - start) / 1000

    const check = await openLifecycleStore(dir)
    try {
      const records = await check.repository.loadSnapshots({ includeTerminal: true })
      const transitions = (await check.repository.listTransitions()).length
      const claimRows = (await new SqliteDriverClaimStore(check.connection).list()).length
      const steps = runs.reduce((sum, run) => sum + run.steps.length, 0)
      const wantedClaims = driven - Math.ceil(driven / 3)
      if (records.length !== count || transitions !== steps || claimRows !== wantedClaims)
        throw new Error(
          `the seeded workspace holds ${records.length} instance(s), ${transitions} transition(s) and ${claimRows} claim(s); expected ${count}, ${steps} and ${wantedClaims}`,
        )
      const byMachine = new Map<string, { live: number; final: number }>()
      for (const r of records) {
        const entry = byMachine.get(r.machineId) ?? { live: 0, final: 0 }
        entry[r.terminal ? "final" : "live"]++
        byMachine.set(r.machineId, entry)
      }
      const machines = [...byMachine].map(([m, { live, final }]) => `${live + final} ${m}s (${live} live)`).join(", ")
      return {
        dir,
        database: check.file,
        describe: `${count.toLocaleString("en-US")} lifecycles: ${machines}; ${transitions.toLocaleString("en-US")} transitions; ${claimRows} driver claims`,
        instances: records.length,
        transitions,
        seconds,
        remove: () => rmSync(dir, { recursive: true, force: true }),
      }
    } finally {
      await check.close()
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
}
