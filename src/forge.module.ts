import type { PluginInput } from "@opencode-ai/plugin"
import type { AnyStateMachine } from "xstate"
import type { HostCrewsHandle } from "../adapters/opencode/crew/crew.handle"
import type { HostFilesHandle } from "../adapters/opencode/file/file.handle"
import type { ForgeFragment, FragmentContext } from "../adapters/opencode/forge.fragment"
import type { HostGoalsHandle } from "../adapters/opencode/goal/goal.handle"
import type { HostJobsHandle } from "../adapters/opencode/job/job.handle"
import type { Lazy } from "../adapters/opencode/lazy"
import type { HostLoopsHandle } from "../adapters/opencode/loop/loop.handle"
import type { HostPlansHandle } from "../adapters/opencode/plan/plan.handle"
import type { HostWorkersHandle } from "../adapters/opencode/worker/worker.handle"
import type { ResolvedShell } from "../adapters/process/shell.resolver"
import type { Completions } from "../services/completion/completion"
import type { ForgeOptions } from "../services/config/forge.options"
import type { ForgeTimings } from "../services/config/test.timings"
import type { CrewRosterSource } from "../services/crew/crew.ports"
import type { DriverClaims } from "../services/lifecycle/driver.claim"
import type { LedgerStore } from "../services/lifecycle/ledger.ports"
import type { LifecycleHost } from "../services/lifecycle/lifecycle.host"
import type { Clock, LifecycleRepository, Logger } from "../services/lifecycle/lifecycle.ports"
import type { WatchdogService } from "../services/watchdog/watchdog.service"
import type { WorkspaceDatabase } from "./workspace.database"

// One module per part of the plugin, in one list (src/modules.ts) that the plugin's start (src/fragments.ts) and the
// workspace's composition (src/composition.ts) both walk. A module has two parts:
// - the start-time part, read when opencode loads the plugin: its name, tool ids, commands and the fragment (tools and
//   hook handlers). It imports no machine, so opencode's start stays cheap (`npm run bench:startup`);
// - the lazy part (`load()`), imported on first use: for a lifecycle its machine, effects factory, refusals, birth
//   gate, restore and driver policies and its service factory; for a surface (no lifecycle), its factory alone.

/** What each module's factory builds: the handle its fragment and later modules use. */
export interface ModuleHandles {
  partition: undefined
  workers: HostWorkersHandle
  job: HostJobsHandle
  plan: HostPlansHandle
  goal: HostGoalsHandle
  crew: HostCrewsHandle
  loop: HostLoopsHandle
  files: HostFilesHandle
  completion: Completions
  watchdog: WatchdogService | undefined
}
export type ModuleName = keyof ModuleHandles

/** What the plugin knows at start, before any module loads. */
export interface StartFacts {
  /** The workspace root: the git worktree, or the folder itself outside git. */
  readonly workspace: string
  /** The interpreter family forge_shell runs commands under, named in its description. */
  readonly shellFamily: string
  /** The workspace database's lifecycle records (its stand-in's when the file cannot be used), for restore steps. */
  repository(): Promise<LifecycleRepository | undefined>
}

/** What a module's factory is given: the workspace's shared parts, and the handles of the modules listed before it. */
export interface ModuleParts {
  readonly client: PluginInput["client"]
  readonly log: Logger
  readonly clock: Clock
  readonly workspace: string
  /** The project directory opencode runs in (a host-scoped module's anchor). */
  readonly directory: string
  readonly options: ForgeOptions
  /** The plugin options as given, to ledger the options that fell back to their defaults. */
  readonly rawOptions: unknown
  readonly env: Readonly<Record<string, string | undefined>>
  readonly timings: ForgeTimings
  readonly shell?: ResolvedShell
  /** The forge-* workers a crew can dispatch (the host's forge.json pools, read fresh at each registration). */
  readonly roster: CrewRosterSource
  /** The one lifecycle host: every lifecycle of the workspace is defined on it. */
  readonly host: LifecycleHost
  readonly database: WorkspaceDatabase
  /** The workspace's one driver claim (src/drivers.ts). */
  readonly claims: DriverClaims
  /** The workspace database's one ledger table. */
  readonly ledgers: LedgerStore
  repository(): Promise<LifecycleRepository | undefined>
  /** The handle of a module listed before this one (the list's order is the build order). */
  handle<N extends ModuleName>(name: N): ModuleHandles[N]
}

/**
 * Who drives an instance, after a restart or beside another opencode process:
 * - `shared-record`: any process; every step is decided on the latest committed record (`shared: true`);
 * - `claim`: the process holding the instance's driver claim (the kernel's `DriverClaims`, of `claimKind`); the
 *   driver watch asks `takeOverLeft` to take up what a dead process left;
 * - `own-process`: the process that started it; its instances end with it.
 */
export type DriverPolicy<H> =
  | { readonly kind: "shared-record" }
  | { readonly kind: "claim"; readonly claimKind: string; takeOverLeft(handle: H): Promise<void> }
  | { readonly kind: "own-process" }

/**
 * How a lifecycle's instances come back after a restart:
 * - `at-open`: while the workspace opens, before any gate decides (a draft plan bans writes from the first call);
 *   `abandon` drops what a restore from a database that then failed had loaded;
 * - `after-open`: by the fragment's restore step, once the workspace is open (it logs what it found);
 * - `never`: the instances live in memory only, and `why` says so.
 */
export type RestorePolicy<H> =
  | { readonly when: "at-open"; run(handle: H, repository: LifecycleRepository): Promise<void>; abandon(handle: H): void }
  | { readonly when: "after-open" }
  | { readonly when: "never"; readonly why: string }

/** A lifecycle's lazy part: the statechart and everything hosted with it. */
export interface LifecycleParts<N extends ModuleName> {
  /** The statechart (the one `machines/index.ts` catalogs). */
  readonly machine: AnyStateMachine
  /** `create<Name>Implementations`: the machine's effects. */
  readonly createImplementations: (deps: never) => object
  /** `explain<Name>Refusal`: the words of a refused event (which gate, and the way past it). */
  readonly explainRefusal: (snapshot: never, event: never) => string
  /** `explain<Name>BirthRefusal`, or null where the machine refuses no birth (its input is all it needs). */
  readonly explainBirthRefusal: ((snapshot: never) => string) | null
  readonly restore: RestorePolicy<ModuleHandles[N]>
  readonly driver: DriverPolicy<ModuleHandles[N]>
  /** The service factory: the lifecycle on the workspace's one host, with its harness. */
  create(parts: ModuleParts): ModuleHandles[N]
  /** After the plugin's dispose, before the database closes. */
  close?(handle: ModuleHandles[N]): Promise<void> | void
}

/** A surface's lazy part: what holds no lifecycle of its own (the file tools, attempt_completion, the workers). */
export interface SurfaceParts<N extends ModuleName, P = ModuleParts> {
  create(parts: P): ModuleHandles[N]
}

/** What a host-scoped surface is built from: it exists before (and without) any workspace. */
export interface HostParts {
  /** The project directory opencode runs in. */
  readonly directory: string
  readonly log: Logger
}

interface ModuleStart<N extends ModuleName> {
  readonly name: N
  /** The tools the fragment registers (the config hook permits them). */
  readonly toolIds: readonly string[]
  /** The slash commands the fragment answers (each only where the user's config has none of that name). */
  readonly commands: readonly string[]
  /** The start-time part: tools and hook handlers over the lazily built handle. */
  fragment(context: FragmentContext, handle: Lazy<ModuleHandles[N]>, start: StartFacts): ForgeFragment
}

/** A lifecycle: a statechart on the workspace's one host. */
export interface LifecycleModule<N extends ModuleName> extends ModuleStart<N> {
  readonly kind: "lifecycle"
  load(): Promise<LifecycleParts<N>>
}

/**
 * A surface: tools or belts with no statechart. A `workspace` surface is built with the workspace's composition, a
 * `host` one on its own (the workers are read at config, before any workspace opens), and a `none` one builds nothing.
 */
export type SurfaceModule<N extends ModuleName> = ModuleStart<N> & { readonly kind: "surface" } & (
    | { readonly scope: "workspace"; load(): Promise<SurfaceParts<N>> }
    | { readonly scope: "host"; load(): Promise<SurfaceParts<N, HostParts>> }
    | { readonly scope: "none" }
  )

export type ForgeModule<N extends ModuleName = ModuleName> = { [K in N]: LifecycleModule<K> | SurfaceModule<K> }[N]
