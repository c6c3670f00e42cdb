import type { Plugin, PluginInput } from "@opencode-ai/plugin"
import { createForgeHooks } from "../adapters/opencode/forge.hooks"
import { createOpencodeLogger } from "../adapters/opencode/opencode.logger"
import { sharedLedgerStore } from "../adapters/storage/ledger.repository"
import { parseForgeOptions } from "../services/config/forge.options"
import { createHostJobs } from "./jobs"
import { forgeFragments } from "./composition"
import { composeWorkspace, systemClock } from "./runtime"
import { createHostWatchdog } from "./watchdog"
import { workspaceRoot } from "./workspace.root"

// The opencode plugin entry. opencode rejects a module with any export other than the plugin, so this file's only
// export is the default `{ id, server }`.

const server: Plugin = async (input: PluginInput, rawOptions?: Record<string, unknown>) => {
  const log = createOpencodeLogger(input.client)
  const { options, warnings } = parseForgeOptions(rawOptions)
  for (const warning of warnings) log.warn(warning)
  const workspace = workspaceRoot(input.directory, input.worktree)
  // One workspace: one database opener, one lifecycle host; nothing is opened until a lifecycle needs it.
  const forge = composeWorkspace({ workspace, log })
  // Every ledger (job, watchdog) appends to the workspace database's one ledger table, on its one connection.
  const ledgers = sharedLedgerStore(() => forge.database.connection())
  const jobs = createHostJobs({
    client: input.client,
    log,
    clock: systemClock,
    repository: () => forge.database.repository(),
    keyValue: () => forge.database.keyValue(),
    ledgers,
    host: forge.host,
  })
  const watchdog = createHostWatchdog({ log, options, rawOptions, env: process.env, ledgers, host: forge.host })
  const hooks = createForgeHooks({
    client: input.client,
    log,
    options,
    openRuntime: () => forge.open(),
    fragments: forgeFragments({ repository: () => forge.database.repository(), jobs, watchdog: watchdog?.service }),
  })
  return {
    ...hooks,
    async dispose() {
      await hooks.dispose?.()
      await watchdog?.close()
      await ledgers.close()
      // The database may have been opened without the runtime (a job recorded before any plan tool ran).
      await forge.host.idle()
      await forge.database.close()
      jobs.uninstall()
    },
  }
}

export default { id: "forgecharts", server }
