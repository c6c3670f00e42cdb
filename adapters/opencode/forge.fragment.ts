import type { SandboxShell } from "./sandbox.shell"
import type { Hooks, PluginInput, ToolDefinition } from "@opencode-ai/plugin"
import type { ForgeOptions } from "../../services/config/forge.options"
import type { Logger } from "../../services/lifecycle/lifecycle.ports"
import type { ForgeRuntime, ForgeRuntimeAccess } from "./runtime.access"
import type { SessionTree } from "./session.tree"
import type { ScreenFields } from "./tool.screen"

// What one lifecycle contributes to the plugin: its tools, its hook handlers and its restore step. The plugin's
// hooks (forge.hooks.ts) do the bookkeeping every lifecycle shares and fan each hook out to the fragments in order.

export type Hook<K extends keyof Hooks> = NonNullable<Hooks[K]>

/** The hooks a fragment may handle. */
export type FragmentHookName =
  | "config"
  | "chat.message"
  | "chat.params"
  | "tool.execute.before"
  | "tool.execute.after"
  | "shell.env"
  | "command.execute.before"
  | "event"
  | "experimental.session.compacting"
  | "experimental.compaction.autocontinue"
export type FragmentHooks = { [K in FragmentHookName]?: Hook<K> }

export interface ForgeFragment {
  /** The lifecycle's name, for logs. */
  readonly id: string
  /** The tool ids this lifecycle owns: the config hook registers and permits them with the others. */
  readonly toolIds: readonly string[]
  readonly tools?: Record<string, ToolDefinition>
  /**
   * Handlers, called in fragment order once the shared bookkeeping is done; a throwing `tool.execute.before` stops the
   * call and the fragments after it. `config` runs before Forge changes the live config (it sees the user's own).
   */
  readonly hooks?: FragmentHooks
  /**
   * What a call of one of this lifecycle's tools shows on its TUI line beside the model's arguments (tool.screen.ts).
   * Asked at the very start of tool.execute.before and answered without waiting: opencode stores the line then.
   */
  screen?(call: { tool: string; sessionID: string; args: unknown }): ScreenFields | undefined
  /** The arguments of this lifecycle's tools that carry a body of text (a file, a plan): their line folds it (tool.screen.ts). */
  readonly bodies?: Readonly<Record<string, readonly string[]>>
  /** Runs once the workspace runtime is open (restores what an earlier opencode left). A failure is logged, never thrown. */
  restore?(runtime: ForgeRuntime): Promise<void>
  /** Plugin dispose, in reverse fragment order, before the runtime closes. */
  dispose?(): Promise<void>
}

/** What every fragment may ask of the plugin. */
export interface FragmentContext {
  readonly client: PluginInput["client"]
  readonly log: Logger
  readonly options: ForgeOptions
  /** Session parents, for the root a subagent's state is bound to. */
  readonly tree: SessionTree
  /** The agent speaking in a session, as chat.params reported it (tool hooks are not told who calls). */
  speakerOf(sessionId: string): string | undefined
  /** Forge's own tools: the runtime (opened and restored) and the session their state is bound to. */
  readonly access: ForgeRuntimeAccess
  /** The runtime, opened and restored once; rejects when it cannot open. */
  openRuntime(): Promise<ForgeRuntime>
  /** The runtime if it is open already, for what cannot wait (a tool's line). */
  runtimeNow(): ForgeRuntime | undefined
  /** The project directory opencode runs in: a tool's default working directory. */
  readonly directory: string
  /** Hooks: the runtime, or undefined when it cannot open — Forge's trouble never stops tools that are not Forge's. */
  runtime(): Promise<ForgeRuntime | undefined>
  /**
   * True while the runtime is still opening, for a session created in this host or a subagent of one: it can hold no
   * lifecycle yet (only Forge's tools and commands start one, and they wait for the runtime), so its calls need not
   * wait. Opening the database and restoring never delay a session that touches no lifecycle.
   */
  holdsNoLifecycleYet(sessionId: string): boolean
  /** True while the workspace holds nothing of Forge's (no store, runtime not open): nothing journaled to watch. */
  isWorkspaceUnused(): boolean
  /** `agent.forge.disable: true`: Forge stands down. */
  isDisabled(): boolean
  /** Forge's shell shim as opencode's shell: how a confined session's bash reaches its sandbox (one per plugin). */
  readonly sandboxShell: SandboxShell
}
