import { createLineSearch } from "../adapters/process/line.search"
import { type KeyValueStorage, createKeyValueStorage } from "../adapters/storage/keyvalue.storage"
import { openLifecycleStore } from "../adapters/storage/lifecycle.store"
import type { StorageConnection } from "../adapters/storage/storage.connection"
import type { ForgeRuntime } from "../adapters/opencode/runtime.access"
import { FsPlanFiles } from "../adapters/workspace/plan.files"
import type { Clock, LifecycleRepository } from "../services/lifecycle/lifecycle.ports"
import type { Logger } from "../services/plan/plan.ports"
import { PlanQueries } from "../services/plan/plan.queries"
import { PlanRegistry } from "../services/plan/plan.registry"
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
  readonly restoreReport: RestoreReport
}

export const systemClock: Clock = { now: () => Date.now() }

/**
 * Composes one workspace's runtime: opens (and migrates) its database, restores every non-terminal actor,
 * reconciles each with its document, and hands out the services the hooks and tools use.
 */
export async function createForgeRuntime(options: RuntimeOptions): Promise<ComposedRuntime> {
  const clock = options.clock ?? systemClock
  const store = await openLifecycleStore(options.databaseFile ? { file: options.databaseFile } : options.workspace)
  const registry = new PlanRegistry(store.repository, clock)
  const files = new FsPlanFiles(options.workspace)
  const plans = new PlanService({ registry, files, clock, log: options.log })
  const queries = new PlanQueries(registry, files, createLineSearch())
  let restoreReport: RestoreReport
  try {
    restoreReport = await plans.sync.restore(store.repository)
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
    plans,
    queries,
    registry,
    repository: store.repository,
    connection: store.connection,
    keyValue: createKeyValueStorage(store.connection, clock.now),
    restoreReport,
    async close() {
      await registry.host.idle()
      registry.stop()
      await store.close()
    },
  }
}
