import { SandboxShell } from "./sandbox.shell"
import type { Hooks, PluginInput, ToolDefinition } from "@opencode-ai/plugin"
import type { ForgeOptions } from "../../services/config/forge.options"
import type { Logger } from "../../services/lifecycle/lifecycle.ports"
import { storageTroubleText } from "../../services/lifecycle/storage.trouble"
import { type LiveConfig, applyForgeConfig } from "./config.hook"
import type { ForgeFragment, FragmentContext, FragmentHookName, FragmentHooks } from "./forge.fragment"
import type { ForgeRuntime, ForgeRuntimeAccess } from "./runtime.access"
import { type RestoreDelay, RestoreSchedule } from "./restore.schedule"
import { SessionTree } from "./session.tree"
import { foldBodies, hideScreenFields, showOnCallLine } from "./tool.screen"

export interface ForgeHooksDeps {
  client: PluginInput["client"]
  log: Logger
  options: ForgeOptions
  /** Opens (once) the workspace's runtime: database, actors restored and reconciled with their documents. */
  openRuntime: () => Promise<ForgeRuntime>
  /** The lifecycles' fragments, in the order their hooks run (src/fragments.ts lists them). */
  fragments: (context: FragmentContext) => ForgeFragment[]
  /** When the background restore of what an earlier run left starts (restore.schedule.ts); default: at config. */
  restoreDelay?: RestoreDelay
  /** What the workspace holds on disk (default: assumed to hold state that may change any time). */
  storedState?: StoredState
  /** The project directory opencode runs in (default: the process's working directory). */
  directory?: string
  /**
   * How often a host that has not opened the workspace yet looks (one stat) whether another process has written Forge's
   * stored state since: then it opens the workspace, and with it the watch that takes up work whose driver ended.
   * Without it the workspace opens only on first use or at the restore.
   */
  lookForWorkMs?: number
}

/** Forge's stored state on disk, as a host that has not opened the workspace yet may cheaply ask of it. */
export interface StoredState {
  /**
   * Whether the workspace holds anything an earlier run left. Without it no lifecycle exists until a host starts one:
   * nothing is restored, and no session's call waits for the runtime.
   */
  holds(): boolean
  /** Whether the stored state changed since this host loaded: another opencode process on the workspace wrote it. */
  changedSinceLoad(): boolean
}

const ASSUMED_STATE: StoredState = { holds: () => true, changedSinceLoad: () => true }

interface SessionEvent {
  type: string
  properties?: { sessionID?: string; info?: { id?: string; parentID?: string }; status?: { type?: string } }
}

/**
 * The plugin's hooks: the bookkeeping every lifecycle shares (who speaks in which session, session parents, the
 * runtime opened once and each fragment's restore run after it, `agent.forge.disable`), then each hook fanned out
 * to the fragments. Every gate decision is a fragment's machine's; hooks only route and surface it.
 */
export function createForgeHooks(deps: ForgeHooksDeps): Hooks {
  const tree = new SessionTree(async (id) => (await deps.client.session.get({ path: { id } })).data ?? undefined)
  let disabled = false
  let runtime: Promise<ForgeRuntime> | undefined
  let opened: ForgeRuntime | undefined
  // Root sessions created while this host runs. No lifecycle of an earlier host can be theirs, and this host starts
  // one only through Forge's tools and commands, which wait for the runtime — but another opencode process may start
  // one in the same session, so the shortcut holds only while nobody else has written Forge's stored state.
  const bornHere = new Set<string>()
  const speakers = new Map<string, string>()
  let fragments: ForgeFragment[] = []
  const stored = deps.storedState ?? ASSUMED_STATE
  const schedule = new RestoreSchedule(() => void openRuntime().catch(() => undefined), deps.restoreDelay)
  let lookForWork: ReturnType<typeof setInterval> | undefined
  const openRuntime = (): Promise<ForgeRuntime> => {
    runtime ??= deps.openRuntime().then(
      async (rt) => {
        for (const fragment of fragments) {
          await fragment
            .restore?.(rt)
            .catch((error: unknown) => deps.log.error(`${fragment.id}: what a previous run left could not be restored: ${describe(error)}`))
        }
        opened = rt
        return rt
      },
      (error: unknown) => {
        runtime = undefined
        deps.log.error(`could not open the Forge runtime: ${describe(error)}`)
        throw error
      },
    )
    return runtime
  }
  const access: ForgeRuntimeAccess = {
    async forTool(ctx) {
      if (disabled) throw new Error("Forge is disabled for this host (agent.forge.disable is true).")
      const runtime = await openRuntime()
      // Forge's own tools answer for the database they cannot use; nobody else's tools are touched by it.
      if (runtime.storageTrouble !== undefined) throw new Error(storageTroubleText(runtime.storageTrouble))
      return { runtime, session: await tree.rootOf(ctx.sessionID) }
    },
  }
  fragments = deps.fragments({
    client: deps.client,
    log: deps.log,
    options: deps.options,
    tree,
    speakerOf: (id) => speakers.get(id),
    access,
    openRuntime,
    runtimeNow: () => opened,
    directory: deps.directory ?? process.cwd(),
    runtime: () => openRuntime().catch(() => undefined),
    holdsNoLifecycleYet: (id) => {
      if (opened !== undefined) return false
      const root = tree.knownRootOf(id)
      if (!stored.holds()) return true
      return root !== undefined && bornHere.has(root) && !stored.changedSinceLoad()
    },
    isWorkspaceUnused: () => opened === undefined && !stored.holds(),
    isDisabled: () => disabled,
    sandboxShell: new SandboxShell({ mode: deps.options.loop.sandbox, log: deps.log }),
  })
  /** Calls one hook of every fragment in order (none while Forge stands down). */
  const fanOut = async <K extends FragmentHookName>(name: K, ...args: Parameters<NonNullable<FragmentHooks[K]>>): Promise<void> => {
    if (disabled) return
    for (const fragment of fragments) {
      const handler = fragment.hooks?.[name] as ((...a: typeof args) => Promise<void>) | undefined
      await handler?.(...args)
    }
  }

  const tools: Record<string, ToolDefinition> = Object.assign({}, ...fragments.map((f) => f.tools ?? {}))
  const argKeys = new Map(Object.entries(tools).map(([id, tool]) => [id, new Set(Object.keys(tool.args))]))
  const bodies = new Map(fragments.flatMap((f) => Object.entries(f.bodies ?? {})).map(([id, names]) => [id, new Set(names)]))

  /** Before anything waits: opencode stores the call's input, and with it the TUI line, as the call starts. */
  const showCallLine = (tool: string, sessionID: string, args: unknown) => {
    const keys = argKeys.get(tool)
    if (keys === undefined || disabled) return
    for (const fragment of fragments) {
      try {
        const fields = fragment.screen?.({ tool, sessionID, args })
        if (fields !== undefined) showOnCallLine(args, fields, keys)
      } catch (error) {
        deps.log.warn(`${fragment.id}: the line of a ${tool} call could not be drawn: ${describe(error)}`)
      }
    }
    const folded = bodies.get(tool)
    if (folded !== undefined) foldBodies(args, folded)
  }

  return {
    tool: tools,

    async config(cfg) {
      await fanOut("config", cfg)
      disabled = applyForgeConfig(
        cfg as LiveConfig,
        fragments.flatMap((f) => f.toolIds),
        deps.options,
      ).disabled
      if (disabled) deps.log.info("agent.forge.disable is true: Forge stands down (no agent, commands, tools or gates)")
      // Restore what an earlier run left soon after start, so restore problems show up and a dead host's survive jobs
      // are adopted; a gate that needs a restored lifecycle before then opens the runtime itself.
      else if (runtime === undefined && stored.holds()) schedule.started()
      // A process started before any goal or loop existed still drives them once their driver is gone: as soon as
      // another process writes Forge's stored state, this one opens the workspace (and its driver watch).
      if (!disabled && deps.lookForWorkMs !== undefined && lookForWork === undefined) {
        lookForWork = setInterval(() => {
          if (opened !== undefined) return clearInterval(lookForWork)
          if (runtime === undefined && stored.holds() && stored.changedSinceLoad()) void openRuntime().catch(() => undefined)
        }, deps.lookForWorkMs)
        lookForWork.unref()
      }
    },

    async "chat.message"(input, output) {
      await fanOut("chat.message", input, output)
    },

    async "chat.params"(input, output) {
      if (input.agent !== "title") speakers.set(input.sessionID, input.agent)
      await fanOut("chat.params", input, output)
    },

    async "tool.execute.before"(input, output) {
      showCallLine(input.tool, input.sessionID, output.args)
      await fanOut("tool.execute.before", input, output)
    },

    async "tool.execute.after"(input, output) {
      await fanOut("tool.execute.after", input, output)
    },

    async "shell.env"(input, output) {
      await fanOut("shell.env", input, output)
    },

    async "command.execute.before"(input, output) {
      await fanOut("command.execute.before", input, output)
    },

    async "experimental.session.compacting"(input, output) {
      await fanOut("experimental.session.compacting", input, output)
    },

    async "experimental.compaction.autocontinue"(input, output) {
      await fanOut("experimental.compaction.autocontinue", input, output)
    },

    // What a Forge tool showed the user on its line is not the model's business (see tool.screen.ts).
    async "experimental.chat.messages.transform"(_input, output) {
      hideScreenFields(output.messages, argKeys)
    },

    async event({ event }) {
      const e = event as SessionEvent
      const info = e.properties?.info
      if ((e.type === "session.created" || e.type === "session.updated") && info?.id) tree.learn(info.id, info.parentID)
      if (e.type === "session.created" && info?.id && !info.parentID) bornHere.add(info.id)
      const sessionID = e.properties?.sessionID ?? info?.id
      if (sessionID !== undefined && e.type === "session.status") {
        if (e.properties?.status?.type === "idle") schedule.turnEnded(sessionID)
        else schedule.turnStarted(sessionID)
      }
      if (sessionID !== undefined && e.type === "session.idle") schedule.turnEnded(sessionID)
      await fanOut("event", { event })
      if (e.type === "session.deleted" && sessionID !== undefined) {
        tree.forget(sessionID)
        bornHere.delete(sessionID)
        speakers.delete(sessionID)
      }
    },

    async dispose() {
      schedule.cancel()
      clearInterval(lookForWork)
      for (const fragment of [...fragments].reverse()) await fragment.dispose?.()
      const open = runtime
      runtime = undefined
      if (open) await (await open.catch(() => undefined))?.close()
    },
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
