import type { Plugin, PluginInput } from "@opencode-ai/plugin"
import { createForgeHooks } from "../adapters/opencode/forge.hooks"
import { createOpencodeLogger } from "../adapters/opencode/opencode.logger"
import { parseForgeOptions } from "../services/config/forge.options"
import { createHostJobs } from "./jobs"
import { createForgeRuntime, systemClock } from "./runtime"
import { workspaceRoot } from "./workspace.root"

// The opencode plugin entry. opencode rejects a module with any export other than the plugin, so this file's only
// export is the default `{ id, server }`.

const server: Plugin = async (input: PluginInput, rawOptions?: Record<string, unknown>) => {
  const log = createOpencodeLogger(input.client)
  const { options, warnings } = parseForgeOptions(rawOptions)
  for (const warning of warnings) log.warn(warning)
  const workspace = workspaceRoot(input.directory, input.worktree)
  const jobs = createHostJobs({ client: input.client, log, clock: systemClock })
  const hooks = createForgeHooks({
    client: input.client,
    log,
    options,
    openRuntime: () => createForgeRuntime({ workspace, log }),
    jobs,
  })
  return {
    ...hooks,
    async dispose() {
      await hooks.dispose?.()
      jobs.uninstall()
    },
  }
}

export default { id: "forgecharts", server }
