import path from "node:path"
import { createLineSearch } from "../adapters/process/line.search"
import { type KeyValueStorage, createKeyValueStorage } from "../adapters/storage/keyvalue.storage"
import { type LifecycleStore, databasePath } from "../adapters/storage/lifecycle.store"
import { openStandIn, openWorkspaceStore } from "../adapters/storage/workspace.store"
import type { StorageConnection } from "../adapters/storage/storage.connection"
import type { ForgeRuntime } from "../adapters/opencode/runtime.access"
import { FsPlanFiles } from "../adapters/workspace/plan.files"
import type { Clock, LifecycleRepository, Logger } from "../services/lifecycle/lifecycle.ports"
import { type StorageTrouble, moveAsideRemedy } from "../services/lifecycle/storage.trouble"
import { PlanQueries } from "../services/plan/plan.queries"
import { rebuildLivePlans } from "../services/plan/plan.rebuild"
import { PlanRegistry } from "../services/plan/plan.registry"
import { definePlanLifecycle } from "../services/plan/plan.lifecycle"
import { LifecycleHost } from "../services/lifecycle/lifecycle.host"
import { PlanService } from "../services/plan/plan.service"
import type { RestoreReport } from "../services/plan/plan.sync"

export interface RuntimeOptions {
  /** The workspace root: the git worktree, or the folder itself outside git. */
  workspace: string
  clock?: Clock
  log: Logger
  /** Database file; defaults to the workspace's `.opencode/forge/forge.db`. */
  databaseFile?: string
}

export interface ComposedRuntime extends ForgeRuntime {
  readonly registry: PlanRegistry
  /** The workspace database's lifecycle tables, shared by every lifecycle (jobs record theirs here too). */
  readonly repository: LifecycleRepository
  /** The database's one connection: every repository of the workspace shares it. */
  readonly connection: StorageConnection
  /** Small persisted stores (the job ledger) on the same connection. */
  readonly keyValue: KeyValueStorage
  /** What restore found, plus the live plans rebuilt from documents the database did not know. */
  readonly restoreReport: RestoreReport & { rebuilt: string[] }
}

export const systemClock: Clock = { now: () => Date.now() }

/**
 * Composes one workspace's runtime: opens (and migrates) its database, restores every non-terminal actor,
 * reconciles each with its document, rebuilds live plans the database does not know from their documents, and hands
 * out the services the hooks and tools use. A database that cannot be used never makes this fail: the runtime then
 * runs on an in-memory database rebuilt from the documents, and `storageTrouble` says why.
 */
export async function createForgeRuntime(options: RuntimeOptions): Promise<ComposedRuntime> {
  const file = options.databaseFile !== undefined ? path.resolve(options.databaseFile) : databasePath(options.workspace)
  const opened = await openWorkspaceStore(file, options.log)
  try {
    return await composeRuntime(options, opened.store, opened.trouble)
  } catch (error) {
    // The file opened but could not be restored from: the same fallback as a file that cannot be opened.
    if (opened.trouble !== undefined) throw error
    const problem = `restoring from it failed: ${error instanceof Error ? error.message : String(error)}`
    const standIn = await openStandIn({ file, problem, remedy: moveAsideRemedy(file) }, options.log)
    return composeRuntime(options, standIn.store, standIn.trouble)
  }
}

async function composeRuntime(options: RuntimeOptions, store: LifecycleStore, storageTrouble: StorageTrouble | undefined): Promise<ComposedRuntime> {
  const clock = options.clock ?? systemClock
  const files = new FsPlanFiles(options.workspace)
  const host = new LifecycleHost({ repository: async () => store.repository, clock, log: options.log })
  const registry = new PlanRegistry(definePlanLifecycle(host, { files, clock }))
  const plans = new PlanService({ registry, files, clock, log: options.log })
  const queries = new PlanQueries(registry, files, createLineSearch())
  let restoreReport: ComposedRuntime["restoreReport"]
  try {
    const restored = await plans.sync.restore(store.repository)
    const rebuilt = await rebuildLivePlans({ repository: store.repository, files, registry, sync: plans.sync })
    for (const problem of rebuilt.problems) options.log.warn(`plan ${problem.planPath}: ${problem.problem}`)
    if (rebuilt.rebuilt.length > 0) options.log.info(`rebuilt ${rebuilt.rebuilt.length} live plan(s) from their documents`, { rebuilt: rebuilt.rebuilt })
    restoreReport = { ...restored, rebuilt: rebuilt.rebuilt, problems: [...restored.problems, ...rebuilt.problems] }
  } catch (error) {
    registry.stop()
    await store.close()
    throw error
  }
  if (restoreReport.restored.length > 0) {
    options.log.info(`restored ${restoreReport.restored.length} live plan(s)`, { reconciled: restoreReport.reconciled })
  }
  return {
    workspace: options.workspace,
    storageTrouble,
    plans,
    queries,
    registry,
    repository: store.repository,
    connection: store.connection,
    keyValue: createKeyValueStorage(store.connection, clock.now),
    restoreReport,
    async close() {
      await host.idle()
      registry.stop()
      await store.close()
    },
  }
}
