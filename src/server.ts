import type { Plugin, PluginInput } from "@opencode-ai/plugin"
import { createForgeHooks } from "../adapters/opencode/forge.hooks"
import { createOpencodeLogger } from "../adapters/opencode/opencode.logger"
import { parseForgeOptions } from "../services/config/forge.options"
import { composeForge } from "./composition"
import { workspaceRoot } from "./workspace.root"

// The opencode plugin entry. opencode rejects a module with any export other than the plugin, so this file's only
// export is the default `{ id, server }`.

const server: Plugin = async (input: PluginInput, rawOptions?: Record<string, unknown>) => {
  const log = createOpencodeLogger(input.client)
  const { options, warnings } = parseForgeOptions(rawOptions)
  for (const warning of warnings) log.warn(warning)
  const forge = composeForge({ client: input.client, log, options, rawOptions, env: process.env, workspace: workspaceRoot(input.directory, input.worktree) })
  const hooks = createForgeHooks({ client: input.client, log, options, openRuntime: forge.open, fragments: forge.fragments })
  return {
    ...hooks,
    async dispose() {
      await hooks.dispose?.()
      await forge.close()
    },
  }
}

export default { id: "forgecharts", server }
