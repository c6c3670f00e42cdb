import { setTimeout as sleep } from "node:timers/promises"
import type { HostPlansHandle, PlanRestoreReport } from "../adapters/opencode/plan/plan.handle"
import type { ForgeRuntime } from "../adapters/opencode/runtime.access"
import type { KeyValueStorage } from "../adapters/storage/keyvalue.storage"
import { isBusy } from "../adapters/storage/sqlite.busy"
import type { StorageConnection } from "../adapters/storage/storage.connection"
import { LOCKED_OPEN_WINDOW_MS } from "../adapters/storage/workspace.store"
import { LifecycleHost } from "../services/lifecycle/lifecycle.host"
import type { LifecycleInspection } from "../services/lifecycle/lifecycle.inspection"
import type { Clock, LifecycleRepository, Logger } from "../services/lifecycle/lifecycle.ports"
import { type StorageTrouble, lockedRemedy, moveAsideRemedy } from "../services/lifecycle/storage.trouble"
import type { PlanQueries } from "../services/plan/plan.queries"
import type { PlanRegistry } from "../services/plan/plan.registry"
import type { PlanService } from "../services/plan/plan.service"
import { createHostPlans } from "./plan/plan.lazy"
import { systemClock } from "./system"
import { type OpenDatabase, WorkspaceDatabase } from "./workspace.database"

export interface RuntimeOptions {
  /** The workspace root: the git worktree, or the folder itself outside git. */
  workspace: string
  clock?: Clock
  log: Logger
  /** Database file; defaults to the workspace's `.opencode/forge/forge.db`. */
  databaseFile?: string
  /** Who watches every lifecycle's snapshots live (the `inspect` option). */
  inspection?: LifecycleInspection
}

/** A restore that must finish while the workspace opens, before any gate decides (a module's `at-open` policy). */
export interface OpenRestoreStep {
  run(repository: LifecycleRepository): Promise<void>
  /** Drops what `run` loaded from a database that then failed (the workspace falls back to a stand-in). */
  abandon(): void
}

/** A workspace composed but not yet opened: the one database opener and the one lifecycle host. */
export interface ForgeWorkspace {
  readonly workspace: string
  readonly clock: Clock
  readonly log: Logger
  readonly database: WorkspaceDatabase
  /** The one lifecycle host: every lifecycle of the workspace is defined on it. */
  readonly host: LifecycleHost
  /** Opens the database once and runs the `at-open` restore steps on it. */
  open(): Promise<OpenedWorkspace>
}

export interface OpenedWorkspace extends ForgeRuntime {
  readonly host: LifecycleHost
  /** The workspace database's lifecycle tables, shared by every lifecycle (jobs record theirs here too). */
  readonly repository: LifecycleRepository
  /** The database's one connection: every repository of the workspace shares it. */
  readonly connection: StorageConnection
  /** Small persisted stores (the job registry) on the same connection. */
  readonly keyValue: KeyValueStorage
}

/**
 * Composes a workspace without opening anything: its database opens on first use. `atOpen` names the restore steps
 * the open runs (asked at the open, so the modules built after this composition can supply them).
 */
export function composeWorkspace(options: RuntimeOptions, atOpen: () => readonly OpenRestoreStep[] = () => []): ForgeWorkspace {
  const clock = options.clock ?? systemClock
  const database = new WorkspaceDatabase(options.workspace, options.log, clock, options.databaseFile)
  const host = new LifecycleHost({ repository: () => database.repository(), clock, log: options.log, inspection: options.inspection })
  let opened: Promise<OpenedWorkspace> | undefined
  const composed: ForgeWorkspace = {
    workspace: options.workspace,
    clock,
    log: options.log,
    database,
    host,
    open: () =>
      (opened ??= openWorkspace(composed, atOpen()).catch((error: unknown) => {
        opened = undefined
        throw error
      })),
  }
  return composed
}

/**
 * Opens (and migrates) the workspace's database and runs the restore steps on it. A database that cannot be used
 * never makes this fail: the workspace then runs on an in-memory database (the plans rebuilt from their documents),
 * and `storageTrouble` says why.
 */
async function openWorkspace(ws: ForgeWorkspace, steps: readonly OpenRestoreStep[]): Promise<OpenedWorkspace> {
  const opened = await ws.database.open()
  const deadline = Date.now() + LOCKED_OPEN_WINDOW_MS
  for (let attempt = 1; ; attempt++) {
    try {
      return await restoreInto(ws, opened, steps)
    } catch (error) {
      if (opened.trouble !== undefined) throw error
      for (const step of steps) step.abandon()
      const locked = isBusy(error)
      // Another process held the file locked past SQLite's busy timeout: it lets go, so the restore is tried again.
      if (locked && Date.now() < deadline) {
        ws.log.warn(`Forge database ${ws.database.file} is locked by another process while restoring (attempt ${attempt}); Forge tries again`)
        await sleep(Math.min(200 * attempt, 1_000))
        continue
      }
      // The file opened but could not be restored from: the same fallback as a file that cannot be opened.
      const problem = `restoring from it failed: ${error instanceof Error ? error.message : String(error)}`
      const standIn = await ws.database.fallBack(problem, locked ? lockedRemedy(ws.database.file) : moveAsideRemedy(ws.database.file))
      return restoreInto(ws, standIn, steps)
    }
  }
}

async function restoreInto(ws: ForgeWorkspace, opened: OpenDatabase, steps: readonly OpenRestoreStep[]): Promise<OpenedWorkspace> {
  const { store, trouble } = opened
  for (const step of steps) await step.run(store.repository)
  return {
    workspace: ws.workspace,
    storageTrouble: trouble satisfies StorageTrouble | undefined,
    host: ws.host,
    repository: store.repository,
    connection: store.connection,
    keyValue: opened.keyValue,
    async close() {
      await ws.host.idle()
      for (const step of steps) step.abandon()
      await ws.database.close()
    },
  }
}

/** A workspace opened with its plans alone: what tests, benches and the CLI drive plans through. */
export interface ComposedRuntime extends OpenedWorkspace {
  readonly plans: PlanService
  readonly queries: PlanQueries
  readonly registry: PlanRegistry
  /** The plan harness itself, as the plugin's plan fragment gets it. */
  readonly planHarness: HostPlansHandle
  /** What the plans' restore found, plus the live plans rebuilt from documents the database did not know. */
  readonly restoreReport: PlanRestoreReport
}

/** Composes and opens a workspace with the plan lifecycle on its host (the plugin builds every module instead). */
export async function createForgeRuntime(options: RuntimeOptions): Promise<ComposedRuntime> {
  let report: PlanRestoreReport = { restored: [], reconciled: [], problems: [], rebuilt: [] }
  const step = (plans: HostPlansHandle): OpenRestoreStep => ({
    run: async (repository) => {
      report = await plans.restore(repository)
    },
    abandon: () => plans.stop(),
  })
  let plans: HostPlansHandle | undefined
  const ws = composeWorkspace(options, () => (plans === undefined ? [] : [step(plans)]))
  plans = createHostPlans({ workspace: ws.workspace, clock: ws.clock, log: ws.log, host: ws.host })
  const built = plans
  const opened = await ws.open()
  return { ...opened, plans: built.service, queries: built.queries, registry: built.registry, planHarness: built, restoreReport: report }
}
