import type { Plugin, PluginInput } from "@opencode-ai/plugin"
import { createForgeHooks } from "../adapters/opencode/forge.hooks"
import { createOpencodeLogger } from "../adapters/opencode/opencode.logger"
import { parseForgeOptions } from "../services/config/forge.options"
import { createForgeRuntime } from "./runtime"
import { workspaceRoot } from "./workspace.root"

// The opencode plugin entry. opencode rejects a module with any export other than the plugin, so this file's only
// export is the default `{ id, server }`.

const server: Plugin = async (input: PluginInput, rawOptions?: Record<string, unknown>) => {
  const log = createOpencodeLogger(input.client)
  const { warnings } = parseForgeOptions(rawOptions)
  for (const warning of warnings) log.warn(warning)
  const workspace = workspaceRoot(input.directory, input.worktree)
  return createForgeHooks({
    client: input.client,
    log,
    openRuntime: () => createForgeRuntime({ workspace, log }),
  })
}

export default { id: "forgecharts", server }
