import type { Plugin, PluginInput } from "@opencode-ai/plugin"
import { createForgeHooks } from "../adapters/opencode/forge.hooks"
import { createOpencodeLogger } from "../adapters/opencode/opencode.logger"
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
  let runtime: Promise<ComposedRuntime> | undefined
  // One runtime per workspace: plans restored by createForgeRuntime, then the jobs an earlier host left behind.
  const openRuntime = (): Promise<ComposedRuntime> =>
    (runtime ??= (async () => {
      const rt = await createForgeRuntime({ workspace, log })
      const restored = await jobs.supervisor.restore(rt.repository)
      for (const problem of restored.problems) log.warn(problem)
      if (restored.adopted.length > 0) log.info(`adopted ${restored.adopted.length} survive job(s) from a previous run`)
      return rt
    })().catch((error: unknown) => {
      runtime = undefined
      throw error
    }))
  const jobs = createHostJobs({ client: input.client, log, clock: systemClock, repository: async () => (await openRuntime()).repository })
  const watchdog = createHostWatchdog({ workspace, log, options, rawOptions, env: process.env, ready: openRuntime })
  const hooks = createForgeHooks({ client: input.client, log, options, openRuntime, jobs, watchdog: watchdog?.service })
  return {
    ...hooks,
    async dispose() {
      await hooks.dispose?.()
      await watchdog?.close()
      jobs.uninstall()
    },
  }
}

export default { id: "forgecharts", server }
