// What the lifecycle repository contract's modules share: the driver under test, a case runner that gives each case a
// fresh folder, and the records the cases write. node:assert only, as the contract itself (the Bun runner has no test
// framework).
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import path from "node:path"
import { createLifecycleStore, type LifecycleStore } from "../../../adapters/storage/lifecycle.store"
import type { SqliteDriver, SqliteDriverName } from "../../../adapters/storage/sqlite.driver"
import type { SnapshotRecord, TransitionRecord } from "../../../services/lifecycle/lifecycle.ports"
import type { ContractTestApi } from "./contract.api"

/** The driver under test. */
export interface ContractHarness {
  /** The driver this runtime is expected to pick. */
  driverName: SqliteDriverName
  /** Opens a connection on `file` (with the adapter's pragmas applied). */
  openDriver(file: string): Promise<SqliteDriver>
}

/** How a contract module registers its cases: each in a fresh folder, removed after it; `open` a store in one. */
export function repositoryCases(
  api: ContractTestApi,
  harness: ContractHarness,
): {
  caseOf(name: string, body: (dir: string) => Promise<void>): void
  open(dir: string): Promise<{ store: LifecycleStore; driver: SqliteDriver }>
} {
  const caseOf = (name: string, body: (dir: string) => Promise<void>): void =>
    api.test(name, async () => {
      const dir = await mkdtemp(path.join(tmpdir(), "forge-storage-"))
      try {
        await body(dir)
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    })
  const open = async (dir: string): Promise<{ store: LifecycleStore; driver: SqliteDriver }> => {
    const driver = await harness.openDriver(path.join(dir, "forge.db"))
    return { store: await createLifecycleStore(driver), driver }
  }
  return { caseOf, open }
}

/** A snapshot record of plan p1 in draft; `overrides` set what a case is about. */
export function snapshot(overrides: Partial<SnapshotRecord> = {}): SnapshotRecord {
  return {
    machineId: "plan",
    machineVersion: "1",
    instanceId: "p1",
    sessionId: "s1",
    state: "draft",
    terminal: false,
    snapshot: { status: "active", value: overrides.state ?? "draft", context: {} },
    document: ".opencode/plan/p1.md",
    updatedAt: 1_700_000_000_000,
    ...overrides,
  }
}

/** A transition record of plan p1 (draft, APPROVE, approved); `overrides` set what a case is about. */
export function transition(overrides: Partial<TransitionRecord> = {}): TransitionRecord {
  return { machineId: "plan", instanceId: "p1", sessionId: "s1", from: "draft", event: "APPROVE", to: "approved", at: 1_700_000_000_001, ...overrides }
}

// A real failure inside the transition insert (after the snapshot upsert ran in the same transaction).
export async function failTransitionsWithEvent(driver: SqliteDriver, event: string): Promise<void> {
  await driver.exec(
    `CREATE TRIGGER fail_transition BEFORE INSERT ON transitions WHEN NEW.event = '${event}' BEGIN SELECT RAISE(ABORT, 'forced transition failure'); END`,
  )
}

/** The messages of an error and its causes, one a line. */
export function errorText(error: unknown): string {
  let text = ""
  for (let current: unknown = error; current instanceof Error; current = current.cause) text += `${current.message}\n`
  return text
}
