import type { Plugin, PluginInput } from "@opencode-ai/plugin"
import { createForgeHooks } from "../adapters/opencode/forge.hooks"
import { type Lazy, lazy } from "../adapters/opencode/lazy"
import { createOpencodeLogger } from "../adapters/opencode/opencode.logger"
import { resolveShell } from "../adapters/process/shell.resolver"
import { parseForgeOptions } from "../services/config/forge.options"
import { resolveTimings } from "../services/config/test.timings"
import type { ForgeComposition } from "./composition"
import type { ModuleHandles, ModuleName } from "./forge.module"
import { forgeFragments } from "./fragments"
import { workersModule } from "./workers/workers.module"
import { type CompositionHold, acquireComposition } from "./shared.compositions"
import { workspaceRoot } from "./workspace.root"
import { workspaceStoredState } from "./workspace.state"

// The opencode plugin entry. opencode rejects a module with any export other than the plugin, so this file's only
// export is the default `{ id, server }`.
//
// What opencode loads at start is kept small: the options, the tool definitions and the hook shells. The services
// (database, machines, documents) are imported on first use, when a Forge tool runs, a gate must consult a lifecycle,
// a watched shell call starts, or the background restore of what an earlier run left begins. The build keeps them in
// the one bundle, evaluated only then.

const server: Plugin = async (input: PluginInput, rawOptions?: Record<string, unknown>) => {
  const log = createOpencodeLogger(input.client)
  const { options, warnings } = parseForgeOptions(rawOptions)
  for (const warning of warnings) log.warn(warning)
  // The waits (goal debounce, restore delay, loop look): today's values, unless a test lowered them in the environment.
  const { timings, fallbacks } = resolveTimings(process.env)
  for (const fallback of fallbacks) log.warn(fallback)
  const workspace = workspaceRoot(input.directory, input.worktree)
  const shell = resolveShell()
  // The workers are the host's, read at each config build before any workspace opens; every other module is built
  // with the workspace's composition, on first use.
  const workers = lazy(async () => (await workersModule.load()).create({ directory: input.directory, log }))
  // Shared with the other plugin instances of this process on the workspace (shared.compositions.ts).
  let hold: CompositionHold | undefined
  const core = lazy<ForgeComposition>(async () => {
    hold = acquireComposition(workspace, async () => {
      const { composeForge } = await import("./composition")
      const roster = { roster: async () => (await workers.get()).roster() }
      return composeForge({ client: input.client, log, options, rawOptions, env: process.env, timings, workspace, directory: input.directory, shell, roster })
    })
    return hold.composition
  })
  // Every module's handle: the workers', or one the composition builds.
  const handleOf = <N extends ModuleName>(name: N): Lazy<ModuleHandles[N]> =>
    name === "workers"
      ? (workers as Lazy<ModuleHandles[N]>)
      : { get: async () => (await core.get()).handle(name) as ModuleHandles[N], current: () => core.current()?.handle(name) }
  const hooks = createForgeHooks({
    client: input.client,
    log,
    options,
    openRuntime: async () => (await core.get()).open(),
    fragments: forgeFragments(handleOf, { workspace, shellFamily: shell.family, repository: async () => (await core.get()).repository() }),
    // The background restore waits for opencode's own start and first model request (restore.schedule.ts).
    restoreDelay: timings.restore,
    storedState: workspaceStoredState(workspace),
    lookForWorkMs: timings.driverWatchMs,
    directory: input.directory,
  })
  return {
    ...hooks,
    async dispose() {
      await hooks.dispose?.()
      await hold?.release()
    },
  }
}

export default { id: "forgecharts", server }
