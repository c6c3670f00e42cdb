import { type Lazy, ready } from "../../../adapters/opencode/lazy"
import type { HostJobs } from "../../../src/job/job.lazy"
import { forgeFragments, handlesOf } from "../../../src/fragments"
import type { ComposedRuntime } from "../../../src/runtime"
import type { WatchdogService } from "../../../services/watchdog/watchdog.service"

/**
 * The plugin's fragments over a test's own runtime: the plan harness of the runtime the hooks opened (`runtime()`,
 * undefined before), the test's job host, and no watchdog unless given. The other modules are left out.
 */
export function testFragments(o: {
  runtime: () => ComposedRuntime | undefined
  jobs: HostJobs
  workspace: string
  watchdog?: Lazy<WatchdogService | undefined>
}) {
  const plan = {
    get: async () => {
      const runtime = o.runtime()
      if (runtime === undefined) throw new Error("the plan harness was asked for before the runtime opened")
      return runtime.planHarness
    },
    current: () => o.runtime()?.planHarness,
  }
  return forgeFragments(handlesOf({ job: ready(o.jobs), plan, watchdog: o.watchdog ?? ready(undefined) }), {
    workspace: o.workspace,
    shellFamily: o.jobs.shellFamily,
    repository: async () => o.runtime()?.repository,
  })
}
