import type { PluginInput } from "@opencode-ai/plugin"
import type { HostLoopsHandle } from "../adapters/opencode/loop.handle"
import { createLoopSessions } from "../adapters/opencode/loop.sessions"
import { GitLoopWorktrees } from "../adapters/workspace/loop.worktrees"
import { instanceDriver } from "../adapters/process/job.hosts"
import type { LifecycleHost } from "../services/lifecycle/lifecycle.host"
import type { Clock, LifecycleRepository, Logger } from "../services/lifecycle/lifecycle.ports"
import { restoreLive } from "../services/lifecycle/lifecycle.restore.live"
import { defineLoopLifecycle } from "../services/loop/loop.lifecycle"
import { loopPlansOf } from "../services/loop/loop.plans"
import { LoopService } from "../services/loop/loop.service"
import type { PlanFiles } from "../services/plan/plan.ports"
import type { PlanService } from "../services/plan/plan.service"

/** The loop harness of one workspace: the service the loop tools and the passes' session events call. */
export function createHostLoops(options: {
  client: PluginInput["client"]
  log: Logger
  clock: Clock
  workspace: string
  host: LifecycleHost
  plans: PlanService
  planFiles: PlanFiles
  /** The workspace database's lifecycle records, for the restore. */
  repository: () => Promise<LifecycleRepository | undefined>
  /**
   * How often this process looks for loops whose driving process has ended (another opencode on the workspace
   * exited): the production default, or a test's (test.timings.ts).
   */
  driverWatchMs: number
}): HostLoopsHandle {
  const worktrees = new GitLoopWorktrees(options.workspace)
  const driver = instanceDriver()
  const sessions = createLoopSessions(options.client)
  // The service is the effects' reporter, and the effects are the lifecycle's: the report reaches it once it exists.
  let service: LoopService | undefined
  const lifecycle = defineLoopLifecycle(options.host, {
    worktrees,
    sessions,
    report: (loopName, event) => service?.report(loopName, event),
    driver: driver.id,
    log: options.log,
  })
  service = new LoopService({
    lifecycle,
    worktrees,
    sessions,
    plans: loopPlansOf(options.plans, options.planFiles),
    driver,
    clock: options.clock,
    log: options.log,
  })
  const built = service
  // A loop whose driver exits while this process runs on is taken over here; the timer never keeps the process alive.
  const watch = setInterval(() => {
    built.takeOverLeftLoops().catch((error: unknown) => options.log.warn(`loops: could not look for loops left by their driver: ${String(error)}`))
  }, options.driverWatchMs)
  watch.unref()
  return {
    service: built,
    async restore() {
      const repository = await options.repository()
      if (repository === undefined) return { restored: [], problems: [] }
      // Running loops come back from their records; resumeAll then takes their passes up.
      const report = await restoreLive(lifecycle, repository)
      await built.resumeAll()
      return report
    },
    // From now on this instance counts as gone: the next start (or another running process) takes its loops up.
    dispose: () => {
      clearInterval(watch)
      driver.release()
    },
  }
}
