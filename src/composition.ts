import type { PluginInput } from "@opencode-ai/plugin"
import type { ForgeFragment, FragmentContext } from "../adapters/opencode/forge.fragment"
import { jobFragment } from "../adapters/opencode/job.fragment"
import { planFragment } from "../adapters/opencode/plan.fragment"
import { watchdogFragment } from "../adapters/opencode/watchdog.fragment"
import type { ForgeRuntime } from "../adapters/opencode/runtime.access"
import { sharedLedgerStore } from "../adapters/storage/ledger.repository"
import type { ForgeOptions } from "../services/config/forge.options"
import type { LifecycleRepository, Logger } from "../services/lifecycle/lifecycle.ports"
import type { WatchdogService } from "../services/watchdog/watchdog.service"
import { type HostJobs, createHostJobs } from "./jobs"
import { composeWorkspace, systemClock } from "./runtime"
import { createHostWatchdog } from "./watchdog"

// The one place the lifecycles meet the plugin: every lifecycle's service is built here on the workspace's one host
// and one database, and each contributes one fragment (tools, hook handlers, restore step), listed in the order their
// hooks run. The jobs' belt comes first (a builtin shell call of the forge agent is
// pointed to forge_shell), then the plan's write-ban, then the watchdog, which times only calls every gate passed.

export interface ForgeLifecycles {
  /** The workspace database's lifecycle records (its stand-in's when the file cannot be used), for restore steps. */
  repository: () => Promise<LifecycleRepository | undefined>
  jobs: Pick<HostJobs, "supervisor" | "shellFamily">
  /** Undefined where the host has no /proc: the watchdog stands down. */
  watchdog?: WatchdogService
}

export function forgeFragments(lifecycles: ForgeLifecycles): (context: FragmentContext) => ForgeFragment[] {
  return (context) => [
    jobFragment(context, { ...lifecycles.jobs, repository: lifecycles.repository }),
    planFragment(context),
    ...(lifecycles.watchdog ? [watchdogFragment(context, lifecycles.watchdog)] : []),
  ]
}

export interface ForgeCompositionOptions {
  client: PluginInput["client"]
  log: Logger
  options: ForgeOptions
  /** The plugin options as given, to ledger the options that fell back to their defaults. */
  rawOptions: unknown
  env: Readonly<Record<string, string | undefined>>
  /** The workspace root: the git worktree, or the folder itself outside git. */
  workspace: string
}

export interface ForgeComposition {
  /** Opens the workspace once: its database, the plans restored (the fragments' restore steps run after it). */
  open(): Promise<ForgeRuntime>
  fragments: (context: FragmentContext) => ForgeFragment[]
  /** After the hooks' dispose: the ledgers, the host's queued records, the database, the job host's exit handlers. */
  close(): Promise<void>
}

/** Every lifecycle of one workspace: one database opener, one lifecycle host, one ledger store; nothing opened yet. */
export function composeForge(o: ForgeCompositionOptions): ForgeComposition {
  const workspace = composeWorkspace({ workspace: o.workspace, log: o.log })
  const { database, host } = workspace
  // Every ledger (job, watchdog) appends to the workspace database's one ledger table, on its one connection.
  const ledgers = sharedLedgerStore(() => database.connection())
  const jobs = createHostJobs({
    client: o.client,
    log: o.log,
    clock: systemClock,
    repository: () => database.repository(),
    keyValue: () => database.keyValue(),
    ledgers,
    host,
  })
  const watchdog = createHostWatchdog({ log: o.log, options: o.options, rawOptions: o.rawOptions, env: o.env, ledgers, host })
  return {
    open: () => workspace.open(),
    fragments: forgeFragments({ repository: () => database.repository(), jobs, watchdog: watchdog?.service }),
    async close() {
      await watchdog?.close()
      await ledgers.close()
      // The database may have been opened without the runtime (a job recorded before any plan tool ran).
      await host.idle()
      await database.close()
      jobs.uninstall()
    },
  }
}
