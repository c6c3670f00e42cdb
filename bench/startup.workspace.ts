// The workspace the plugin restores from in the "1,000 records" configuration: 1,000 sessions, each holding one live
// plan (every other one approved), written through the real plan service over the real workspace database, so
// `.opencode/forge/forge.db` and `.opencode/plan/*.md` are what a long-lived workspace really holds. It is built once
// into a template folder and copied into each run's project, so every run restores the same state.
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { databasePath } from "../adapters/storage/database.path"
import { openLifecycleStore } from "../adapters/storage/lifecycle.store"
import { PLAN_DIR } from "../services/plan/plan.paths"
import type { Logger } from "../services/lifecycle/lifecycle.ports"
import { createForgeRuntime } from "../src/runtime"
import { populateWorkspace } from "./gate.workspace"

export interface SeededWorkspace {
  /** Copies the seeded `.opencode/` into a project folder. */
  seed(project: string): void
  /** What the template holds, checked by reading it back. */
  describe: string
  seconds: number
  remove(): void
}

/**
 * Builds the template and checks it holds `records` live plan snapshots and as many documents. With 0: a workspace
 * whose database exists (created and migrated by an earlier run) and holds nothing live.
 */
export async function seedLiveRecords(records: number): Promise<SeededWorkspace> {
  const template = mkdtempSync(path.join(os.tmpdir(), "forge-bench-startup-"))
  try {
    const problems: string[] = []
    const log: Logger = { info: () => undefined, warn: (m) => void problems.push(m), error: (m) => void problems.push(m) }
    const start = performance.now()
    const runtime = await createForgeRuntime({ workspace: template, log })
    let counts: { draft: number; approved: number }
    try {
      counts = records === 0 ? { draft: 0, approved: 0 } : (await populateWorkspace(runtime.plans, { planFiles: records, sessions: records })).counts
    } finally {
      await runtime.close()
    }
    const seconds = (performance.now() - start) / 1000
    if (problems.length > 0) throw new Error(`seeding logged problems:\n${problems.join("\n")}`)

    const store = await openLifecycleStore({ file: databasePath(template) })
    const live = (await store.repository.loadSnapshots({ includeTerminal: false })).length
    await store.close()
    const documents = records === 0 ? 0 : readdirSync(path.join(template, PLAN_DIR)).filter((n) => n.endsWith(".md")).length
    if (live !== records || documents !== records) {
      throw new Error(`the seeded workspace holds ${live} live snapshot(s) and ${documents} document(s), expected ${records} of each`)
    }
    return {
      // Timestamps kept: a long-lived workspace's documents were written before its records, not at each start.
      seed: (project) => cpSync(path.join(template, ".opencode"), path.join(project, ".opencode"), { recursive: true, preserveTimestamps: true }),
      describe: `${live} live plans (${counts.draft} draft, ${counts.approved} approved) in forge.db, ${documents} plan documents`,
      seconds,
      remove: () => rmSync(template, { recursive: true, force: true }),
    }
  } catch (error) {
    rmSync(template, { recursive: true, force: true })
    throw error
  }
}
