import type { PluginInput } from "@opencode-ai/plugin"
import type { ForgeRuntime } from "../adapters/opencode/runtime.access"
import type { ResolvedShell } from "../adapters/process/shell.resolver"
import { InspectionStream } from "../adapters/inspector/inspection.stream"
import { sharedLedgerStore } from "../adapters/storage/ledger.repository"
import type { ForgeOptions } from "../services/config/forge.options"
import type { ForgeTimings } from "../services/config/test.timings"
import type { CrewRosterSource } from "../services/crew/crew.ports"
import type { LifecycleRepository, Logger } from "../services/lifecycle/lifecycle.ports"
import { createDriverClaims, startDriverWatch } from "./drivers"
import type { ForgeModule, ModuleHandles, ModuleName, ModuleParts } from "./forge.module"
import { FORGE_MODULES } from "./modules"
import { type OpenRestoreStep, composeWorkspace } from "./runtime"
import { systemClock } from "./system"

// The one place the lifecycles' services meet: every module's lazy part is loaded and built here, in the list's order
// (src/modules.ts), on the workspace's one lifecycle host and one database. The plugin loads this module only when a
// lifecycle is first touched (src/server.ts).

export interface ForgeCompositionOptions {
  client: PluginInput["client"]
  log: Logger
  options: ForgeOptions
  /** The plugin options as given, to ledger the options that fell back to their defaults. */
  rawOptions: unknown
  env: Readonly<Record<string, string | undefined>>
  /** The plugin's waits: the production defaults, or a test's seams (resolved once, with the env, by the entry). */
  timings: ForgeTimings
  /** The workspace root: the git worktree, or the folder itself outside git. */
  workspace: string
  /** The project directory opencode runs in. */
  directory: string
  /** The interpreter forge_shell runs commands with (resolved when the plugin loaded, for the tool's description). */
  shell?: ResolvedShell
  /** The forge-* workers a crew can dispatch (the host's forge.json pools, read fresh at each registration). */
  roster: CrewRosterSource
}

/** Every module of one workspace built; nothing opened yet (the database opens on first use). */
export interface ForgeComposition {
  /** Opens the workspace once: its database, the `at-open` restores (the fragments' restore steps run after it). */
  open(): Promise<ForgeRuntime>
  /** The workspace database's lifecycle records (its stand-in's when the file cannot be used). */
  repository(): Promise<LifecycleRepository | undefined>
  /** A module's handle; undefined for a module this composition does not build. */
  handle<N extends ModuleName>(name: N): ModuleHandles[N] | undefined
  /** After the hooks' dispose: the modules in reverse order, the ledgers, the host's queued records, the database. */
  close(): Promise<void>
}

/** A module as the composition keeps it: its handle, and its policies bound to it. */
interface Built {
  readonly name: ModuleName
  readonly handle: unknown
  /** Its `at-open` restore, if it has one. */
  readonly openStep?: OpenRestoreStep
  /** The driver watch's look, for a lifecycle whose instances a claim drives. */
  takeOverLeft?(): Promise<void>
  close?(): Promise<void> | void
}

export async function composeForge(o: ForgeCompositionOptions): Promise<ForgeComposition> {
  const built: Built[] = []
  const handles = new Map<ModuleName, unknown>()
  const inspection = inspectionOf(o)
  const workspace = composeWorkspace({ workspace: o.workspace, log: o.log, ...(inspection === undefined ? {} : { inspection }) }, () =>
    built.flatMap((entry) => (entry.openStep === undefined ? [] : [entry.openStep])),
  )
  const { database, host } = workspace
  // Every ledger (job, watchdog) appends to the workspace database's one ledger table, on its one connection.
  const ledgers = sharedLedgerStore(() => database.connection())
  // Who drives each instance a module's driver policy gives to a claim: one claim per instance, in the database.
  const claims = createDriverClaims({ connection: () => database.connection(), clock: systemClock, log: o.log })
  const parts: ModuleParts = {
    client: o.client,
    log: o.log,
    clock: systemClock,
    workspace: o.workspace,
    directory: o.directory,
    options: o.options,
    rawOptions: o.rawOptions,
    env: o.env,
    timings: o.timings,
    shell: o.shell,
    roster: o.roster,
    host,
    database,
    claims,
    ledgers,
    repository: () => database.repository(),
    handle: <N extends ModuleName>(name: N) => {
      if (!handles.has(name)) throw new Error(`the ${name} module is not built yet: a module may use at build time only those listed before it`)
      return handles.get(name) as ModuleHandles[N]
    },
  }
  // Host-scoped surfaces are built by the plugin's entry, and surfaces of no scope build nothing.
  const modules = FORGE_MODULES.filter((module) => module.kind === "lifecycle" || module.scope === "workspace")
  // The lazy parts load side by side (each its own chunk of the bundle); the modules are then built in list order.
  const builders = await Promise.all(modules.map(moduleBuilder))
  for (const build of builders) {
    const entry = build(parts)
    handles.set(entry.name, entry.handle)
    built.push(entry)
  }
  let stopWatch: (() => void) | undefined
  return {
    // Once the workspace is open, this process keeps its claims and looks for work whose driver ended.
    open: async () => {
      const runtime = await workspace.open()
      stopWatch ??= startDriverWatch({
        everyMs: o.timings.driverWatchMs,
        claims,
        log: o.log,
        look: async () => {
          await host.refresh()
          for (const entry of built) await entry.takeOverLeft?.()
        },
      })
      return runtime
    },
    repository: () => database.repository(),
    handle: <N extends ModuleName>(name: N) => handles.get(name) as ModuleHandles[N] | undefined,
    async close() {
      stopWatch?.()
      // The modules stop first (no goal loop or loop pass claims anything after this), in reverse build order.
      for (const entry of [...built].reverse()) await entry.close?.()
      // What this process drove is free for the others at once, not only once its claims lapse.
      await claims.releaseAll()
      await ledgers.close()
      // The database may have been opened without the runtime (a job recorded before any plan tool ran).
      await host.idle()
      await database.close()
      inspection?.close()
    },
  }
}

/** The `inspect` option's stream, when it names an inspector; its WebSocket code loads only then. */
function inspectionOf(o: ForgeCompositionOptions): InspectionStream | undefined {
  const { url, maxQueued } = o.options.inspect
  if (url === null) return undefined
  const sink = import("../adapters/inspector/stately.sink").then(({ statelySink }) => statelySink(url))
  return new InspectionStream({ url, maxQueued, log: o.log, sink })
}

/** Loads a module's lazy part; the builder it gives makes the module's handle and binds its policies to it. */
async function moduleBuilder<N extends ModuleName>(module: ForgeModule<N>): Promise<(parts: ModuleParts) => Built> {
  if (module.kind === "surface") {
    if (module.scope !== "workspace") throw new Error(`the ${module.name} module is not built with a workspace`)
    const surface = await module.load()
    return (parts) => ({ name: module.name, handle: surface.create(parts) })
  }
  const lifecycle = await module.load()
  return (parts) => {
    const handle = lifecycle.create(parts)
    const { restore, driver } = lifecycle
    return {
      name: module.name,
      handle,
      openStep: restore.when === "at-open" ? { run: (repository) => restore.run(handle, repository), abandon: () => restore.abandon(handle) } : undefined,
      takeOverLeft: driver.kind === "claim" ? () => driver.takeOverLeft(handle) : undefined,
      close: () => lifecycle.close?.(handle),
    }
  }
}
