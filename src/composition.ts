import type { PluginInput } from "@opencode-ai/plugin"
import type { ResolvedShell } from "../adapters/process/shell.resolver"
import type { ForgeRuntime } from "../adapters/opencode/runtime.access"
import { sharedLedgerStore } from "../adapters/storage/ledger.repository"
import type { ForgeOptions } from "../services/config/forge.options"
import type { ForgeTimings } from "../services/config/test.timings"
import type { JobSupervisor } from "../services/job/job.supervisor"
import type { LifecycleRepository, Logger } from "../services/lifecycle/lifecycle.ports"
import type { WatchdogService } from "../services/watchdog/watchdog.service"
import type { HostCrewsHandle } from "../adapters/opencode/crew/crew.handle"
import type { CrewRosterSource } from "../services/crew/crew.ports"
import { createHostCrews } from "./crews"
import { createHostFiles } from "./files"
import { Completions } from "../services/completion/completion"
import type { HostFilesHandle } from "../adapters/opencode/file/file.handle"
import { type HostGoals, createHostGoals } from "./goals"
import { createHostJobs } from "./jobs"
import type { HostLoopsHandle } from "../adapters/opencode/loop/loop.handle"
import { createHostLoops } from "./loops"
import { composeWorkspace, systemClock } from "./runtime"
import { createHostWatchdog } from "./watchdog"
import { createDriverClaims, startDriverWatch } from "./drivers"

// The one place the lifecycles' services meet: every one is built here on the workspace's one lifecycle host and one
// database. The plugin loads this module only when a lifecycle is first touched (src/server.ts); the fragments that
// expose the services to opencode are listed in src/fragments.ts.

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
  /** The interpreter forge_shell runs commands with (resolved when the plugin loaded, for the tool's description). */
  shell?: ResolvedShell
  /** The forge-* workers a crew can dispatch (the host's forge.json pools, read fresh at each registration). */
  roster: CrewRosterSource
}

/** Every lifecycle service of one workspace; nothing opened yet (the database opens on first use). */
export interface ForgeComposition {
  /** Opens the workspace once: its database, the plans restored (the fragments' restore steps run after it). */
  open(): Promise<ForgeRuntime>
  /** The workspace database's lifecycle records (its stand-in's when the file cannot be used). */
  repository(): Promise<LifecycleRepository | undefined>
  jobs: JobSupervisor
  /** The goal harness: its service and its continuation loop. */
  goals: HostGoals
  /** The crew harness: its service, /crew and the task belt's answers. */
  crews: HostCrewsHandle
  /** The loop harness: plans executed section by section in git worktrees. */
  loops: HostLoopsHandle
  /** The forge file tools: files and their undo journal, the web. */
  files: HostFilesHandle
  /** attempt_completion's results and the goal's completion gate. */
  completions: Completions
  /** Undefined where the host has no /proc: the watchdog stands down. */
  watchdog?: WatchdogService
  /** After the hooks' dispose: the ledgers, the host's queued records, the database, the job host's exit handlers. */
  close(): Promise<void>
}

export function composeForge(o: ForgeCompositionOptions): ForgeComposition {
  const workspace = composeWorkspace({ workspace: o.workspace, log: o.log })
  const { database, host } = workspace
  // Every ledger (job, watchdog) appends to the workspace database's one ledger table, on its one connection.
  const ledgers = sharedLedgerStore(() => database.connection())
  // Who drives each goal, loop and survive job: one claim per instance, in the workspace database.
  const claims = createDriverClaims({ connection: () => database.connection(), clock: systemClock, log: o.log })
  // The goals first: a job's wake due on a goal's idle rides with the goal's brief.
  const goals = createHostGoals({
    client: o.client,
    log: o.log,
    clock: systemClock,
    workspace: o.workspace,
    host,
    plans: workspace.plans,
    repository: () => database.repository(),
    debounceMs: o.timings.goalDebounceMs,
    claims,
  })
  const crews = createHostCrews({
    log: o.log,
    clock: systemClock,
    workspace: o.workspace,
    host,
    goals: goals.service,
    roster: o.roster,
    repository: () => database.repository(),
  })
  const loops = createHostLoops({
    client: o.client,
    log: o.log,
    clock: systemClock,
    workspace: o.workspace,
    host,
    plans: workspace.plans,
    planFiles: workspace.files,
    repository: () => database.repository(),
    claims,
  })
  const completions = new Completions({ store: ledgers, clock: systemClock, goals: async () => goals.service, loops: async () => loops.service })
  const files = createHostFiles({ clock: systemClock, connection: () => database.connection(), journalMaxMB: o.options.files.journalMaxMB })
  const jobs = createHostJobs({
    carryWake: (sessionId, text) => goals.loop.carryWake(sessionId, text),
    client: o.client,
    log: o.log,
    clock: systemClock,
    shell: o.shell,
    repository: () => database.repository(),
    keyValue: () => database.keyValue(),
    ledgers,
    host,
    claims,
  })
  const watchdog = createHostWatchdog({ log: o.log, options: o.options, rawOptions: o.rawOptions, env: o.env, ledgers, host })
  let stopWatch: (() => void) | undefined
  return {
    // Once the workspace is open, this process keeps its claims and looks for goals, loops and jobs left without a driver.
    open: async () => {
      const runtime = await workspace.open()
      stopWatch ??= startDriverWatch({
        everyMs: o.timings.driverWatchMs,
        claims,
        log: o.log,
        look: async () => {
          await host.refresh()
          await goals.loop.resumeAll()
          await loops.service.takeOverLeftLoops()
          await jobs.takeOverLeft()
        },
      })
      return runtime
    },
    repository: () => database.repository(),
    jobs: jobs.supervisor,
    goals,
    crews,
    loops,
    files,
    completions,
    watchdog: watchdog?.service,
    async close() {
      stopWatch?.()
      goals.dispose()
      loops.dispose()
      // What this process drove is free for the others at once, not only once its claims lapse.
      await claims.releaseAll()
      await watchdog?.close()
      await ledgers.close()
      // The database may have been opened without the runtime (a job recorded before any plan tool ran).
      await host.idle()
      await database.close()
      jobs.uninstall()
    },
  }
}
