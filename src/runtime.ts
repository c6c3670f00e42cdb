import { createLineSearch } from "../adapters/process/line.search"
import type { KeyValueStorage } from "../adapters/storage/keyvalue.storage"
import type { StorageConnection } from "../adapters/storage/storage.connection"
import type { ForgeRuntime } from "../adapters/opencode/runtime.access"
import { FsPlanFiles } from "../adapters/workspace/plan.files"
import { LifecycleHost } from "../services/lifecycle/lifecycle.host"
import type { Clock, LifecycleRepository, Logger } from "../services/lifecycle/lifecycle.ports"
import type { StorageTrouble } from "../services/lifecycle/storage.trouble"
import { definePlanLifecycle } from "../services/plan/plan.lifecycle"
import { PlanQueries } from "../services/plan/plan.queries"
import { rebuildLivePlans } from "../services/plan/plan.rebuild"
import { PlanRegistry } from "../services/plan/plan.registry"
import { PlanService } from "../services/plan/plan.service"
import type { PlanFiles } from "../services/plan/plan.ports"
import type { RestoreReport } from "../services/plan/plan.sync"
import { type OpenDatabase, WorkspaceDatabase } from "./workspace.database"

export interface RuntimeOptions {
  /** The workspace root: the git worktree, or the folder itself outside git. */
  workspace: string
  clock?: Clock
  log: Logger
  /** Database file; defaults to the workspace's `.opencode/forge/forge.db`. */
  databaseFile?: string
}

/** A workspace composed but not yet opened: the one database opener, the one lifecycle host, the plan services. */
export interface ForgeWorkspace {
  readonly workspace: string
  readonly clock: Clock
  readonly log: Logger
  readonly database: WorkspaceDatabase
  /** The one lifecycle host: every lifecycle of the workspace is defined on it. */
  readonly host: LifecycleHost
  /** The plan documents, `.opencode/plan/` of the workspace. */
  readonly files: PlanFiles
  readonly registry: PlanRegistry
  readonly plans: PlanService
  readonly queries: PlanQueries
  /** Opens the database once, restores the plans and reconciles them with their documents. */
  open(): Promise<ComposedRuntime>
}

export interface ComposedRuntime extends ForgeRuntime {
  readonly registry: PlanRegistry
  readonly host: LifecycleHost
  /** The workspace database's lifecycle tables, shared by every lifecycle (jobs record theirs here too). */
  readonly repository: LifecycleRepository
  /** The database's one connection: every repository of the workspace shares it. */
  readonly connection: StorageConnection
  /** Small persisted stores (the job registry) on the same connection. */
  readonly keyValue: KeyValueStorage
  /** What restore found, plus the live plans rebuilt from documents the database did not know. */
  readonly restoreReport: RestoreReport & { rebuilt: string[] }
}

export const systemClock: Clock = { now: () => Date.now() }

/** Composes a workspace without opening anything: its services work from the first call, its database on first use. */
export function composeWorkspace(options: RuntimeOptions): ForgeWorkspace {
  const clock = options.clock ?? systemClock
  const database = new WorkspaceDatabase(options.workspace, options.log, clock, options.databaseFile)
  const host = new LifecycleHost({ repository: () => database.repository(), clock, log: options.log })
  const files = new FsPlanFiles(options.workspace)
  const registry = new PlanRegistry(definePlanLifecycle(host, { files, clock }))
  const plans = new PlanService({ registry, files, clock, log: options.log })
  const queries = new PlanQueries(registry, files, createLineSearch())
  let opened: Promise<ComposedRuntime> | undefined
  const composed: ForgeWorkspace = {
    workspace: options.workspace,
    clock,
    log: options.log,
    database,
    host,
    files,
    registry,
    plans,
    queries,
    open: () =>
      (opened ??= openRuntime(composed).catch((error: unknown) => {
        opened = undefined
        throw error
      })),
  }
  return composed
}

/**
 * Opens (and migrates) the workspace's database, restores every non-terminal plan, reconciles each with its document,
 * rebuilds live plans the database does not know from their documents. A database that cannot be used never makes
 * this fail: the runtime then runs on an in-memory database rebuilt from the documents, and `storageTrouble` says why.
 */
export async function createForgeRuntime(options: RuntimeOptions): Promise<ComposedRuntime> {
  return composeWorkspace(options).open()
}

async function openRuntime(ws: ForgeWorkspace): Promise<ComposedRuntime> {
  const opened = await ws.database.open()
  try {
    return await restorePlans(ws, opened)
  } catch (error) {
    // The file opened but could not be restored from: the same fallback as a file that cannot be opened.
    if (opened.trouble !== undefined) throw error
    ws.registry.stop()
    const standIn = await ws.database.fallBack(`restoring from it failed: ${error instanceof Error ? error.message : String(error)}`)
    return restorePlans(ws, standIn)
  }
}

async function restorePlans(ws: ForgeWorkspace, opened: OpenDatabase): Promise<ComposedRuntime> {
  const { store, trouble } = opened
  const { files } = ws
  const restored = await ws.plans.sync.restore(store.repository)
  const rebuilt = await rebuildLivePlans({ repository: store.repository, files, registry: ws.registry, sync: ws.plans.sync })
  for (const problem of rebuilt.problems) ws.log.warn(`plan ${problem.planPath}: ${problem.problem}`)
  if (rebuilt.rebuilt.length > 0) ws.log.info(`rebuilt ${rebuilt.rebuilt.length} live plan(s) from their documents`, { rebuilt: rebuilt.rebuilt })
  const restoreReport = { ...restored, rebuilt: rebuilt.rebuilt, problems: [...restored.problems, ...rebuilt.problems] }
  if (restoreReport.restored.length > 0) ws.log.info(`restored ${restoreReport.restored.length} live plan(s)`, { reconciled: restoreReport.reconciled })
  return {
    workspace: ws.workspace,
    storageTrouble: trouble satisfies StorageTrouble | undefined,
    plans: ws.plans,
    queries: ws.queries,
    registry: ws.registry,
    host: ws.host,
    repository: store.repository,
    connection: store.connection,
    keyValue: opened.keyValue,
    restoreReport,
    async close() {
      await ws.host.idle()
      ws.registry.stop()
      await ws.database.close()
    },
  }
}
