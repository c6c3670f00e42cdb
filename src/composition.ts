import type { ForgeFragment, FragmentContext } from "../adapters/opencode/forge.fragment"
import { jobFragment } from "../adapters/opencode/job.fragment"
import { planFragment } from "../adapters/opencode/plan.fragment"
import { watchdogFragment } from "../adapters/opencode/watchdog.fragment"
import type { LifecycleRepository } from "../services/lifecycle/lifecycle.ports"
import type { WatchdogService } from "../services/watchdog/watchdog.service"
import type { HostJobs } from "./jobs"

// The one place the lifecycles meet the plugin: each contributes one fragment (tools, hook handlers, restore step),
// listed here in the order their hooks run. The jobs' belt comes first (a builtin shell call of the forge agent is
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
