import type { Plugin, PluginInput } from "@opencode-ai/plugin"
import { createForgeHooks } from "../adapters/opencode/forge.hooks"
import { createOpencodeLogger } from "../adapters/opencode/opencode.logger"
import { sharedLedgerStore } from "../adapters/storage/ledger.repository"
import { parseForgeOptions } from "../services/config/forge.options"
import { createHostJobs } from "./jobs"
import { type ComposedRuntime, createForgeRuntime, systemClock } from "./runtime"
import { createHostWatchdog } from "./watchdog"
import { workspaceRoot } from "./workspace.root"

// The opencode plugin entry. opencode rejects a module with any export other than the plugin, so this file's only
// export is the default `{ id, server }`.

const server: Plugin = async (input: PluginInput, rawOptions?: Record<string, unknown>) => {
  const log = createOpencodeLogger(input.client)
  const { options, warnings } = parseForgeOptions(rawOptions)
  for (const warning of warnings) log.warn(warning)
  const workspace = workspaceRoot(input.directory, input.worktree)
  // The workspace database (plans restored and reconciled), then what hosts that are gone left: jobs, registry, ledger.
  let database: Promise<ComposedRuntime> | undefined
  const openDatabase = (): Promise<ComposedRuntime> =>
    (database ??= createForgeRuntime({ workspace, log }).catch((error: unknown) => {
      database = undefined
      throw error
    }))
  let runtime: Promise<ComposedRuntime> | undefined
  const openRuntime = (): Promise<ComposedRuntime> =>
    (runtime ??= (async () => {
      const rt = await openDatabase()
      // What earlier hosts left is worth a warning, never the plans' gates: a failed job restore is logged and passed.
      try {
        const restored = await jobs.supervisor.restore(rt.repository)
        for (const problem of restored.problems) log.warn(problem)
        if (restored.adopted.length > 0) log.info(`adopted ${restored.adopted.length} survive job(s) from a previous run`)
      } catch (error) {
        log.error(`jobs of a previous run could not be restored: ${error instanceof Error ? error.message : String(error)}`)
      }
      return rt
    })().catch((error: unknown) => {
      runtime = undefined
      throw error
    }))
  // Every ledger (job, watchdog) appends to the workspace database's one ledger table, on the runtime's connection.
  const ledgers = sharedLedgerStore(async () => (await openDatabase()).connection)
  const jobs = createHostJobs({
    client: input.client,
    log,
    clock: systemClock,
    repository: async () => (await openDatabase()).repository,
    keyValue: async () => (await openDatabase()).keyValue,
    ledgers,
  })
  const watchdog = createHostWatchdog({ log, options, rawOptions, env: process.env, ledgers })
  const hooks = createForgeHooks({ client: input.client, log, options, openRuntime, jobs, watchdog: watchdog?.service })
  return {
    ...hooks,
    async dispose() {
      await hooks.dispose?.()
      await watchdog?.close()
      await ledgers.close()
      jobs.uninstall()
    },
  }
}

export default { id: "forgecharts", server }
