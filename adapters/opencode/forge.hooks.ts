import type { Hooks, PluginInput } from "@opencode-ai/plugin"
import type { ForgeOptions } from "../../services/config/forge.options"
import { storageTroubleText } from "../../services/lifecycle/storage.trouble"
import { JOB_TOOL_IDS, builtinShellRefusal } from "../../machines/exec.partition"
import type { JobSupervisor } from "../../services/jobs/job.supervisor"
import type { Logger } from "../../services/lifecycle/lifecycle.ports"
import type { WatchdogService } from "../../services/watchdog/watchdog.service"
import { type LiveConfig, applyForgeConfig } from "./config.hook"
import { createJobTools } from "./job.tools"
import { refuseSurviveWithoutDatabase } from "./job.tools.storage"
import { handlePlanCommand, replacePlanCommandText } from "./plan.command.hook"
import { PLAN_TOOL_IDS, createPlanTools } from "./plan.tools"
import { planTroubleText } from "./prompts/plan.command"
import type { ForgeRuntime, ForgeRuntimeAccess } from "./runtime.access"
import { SessionTree } from "./session.tree"
import { createWatchdogHooks } from "./watchdog.hooks"

export interface ForgeHooksDeps {
  client: PluginInput["client"]
  log: Logger
  options: ForgeOptions
  /** Opens (once) the workspace's runtime: database, actors restored and reconciled with their documents. */
  openRuntime: () => Promise<ForgeRuntime>
  /** The job supervisor of this host process, and the shell family its commands run under. */
  jobs: { supervisor: JobSupervisor; shellFamily: string }
  /** The hang watchdog of this host process (builtin shell calls of the forge family); none: no watchdog. */
  watchdog?: WatchdogService
}

interface SessionEvent {
  type: string
  properties?: { sessionID?: string; info?: { id?: string; parentID?: string }; status?: { type?: string } }
}

const ALL_TOOL_IDS = [...PLAN_TOOL_IDS, ...JOB_TOOL_IDS]

/** The plugin's hooks. Every gate decision is the runtime's (its machines'); hooks only route and surface it. */
export function createForgeHooks(deps: ForgeHooksDeps): Hooks {
  const tree = new SessionTree(async (id) => (await deps.client.session.get({ path: { id } })).data ?? undefined)
  let disabled = false
  let ownsPlanCommand = false
  let runtime: Promise<ForgeRuntime> | undefined
  // The agent speaking in each session, learnt from chat.params (tool hooks are not told who calls).
  const speakers = new Map<string, string>()
  const watchdog = deps.watchdog ? createWatchdogHooks({ watchdog: deps.watchdog, agentOf: (id) => speakers.get(id) }) : undefined
  const openRuntime = (): Promise<ForgeRuntime> => {
    runtime ??= deps.openRuntime().catch((error: unknown) => {
      runtime = undefined
      deps.log.error(`could not open the Forge runtime: ${error instanceof Error ? error.message : String(error)}`)
      throw error
    })
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

  const jobTools = createJobTools({ options: deps.options, supervisor: () => deps.jobs.supervisor, rootOf: (id) => tree.rootOf(id), shellFamily: deps.jobs.shellFamily })
  const storageTrouble = async () => (await openRuntime().catch(() => undefined))?.storageTrouble

  return {
    tool: {
      ...createPlanTools(access),
      ...jobTools,
      forge_shell: refuseSurviveWithoutDatabase(jobTools.forge_shell, deps.options, storageTrouble),
    },

    async config(cfg) {
      const commandBefore = (cfg as LiveConfig).command?.plan
      disabled = applyForgeConfig(cfg as LiveConfig, ALL_TOOL_IDS, deps.options).disabled
      ownsPlanCommand = !disabled && commandBefore === undefined
      if (disabled) deps.log.info("agent.forge.disable is true: Forge stands down (no agent, commands, tools or gates)")
      // Restore lifecycles now, so gates hold from the first tool call and restore problems show up at start.
      else void openRuntime().catch(() => undefined)
    },

    async "chat.params"(input) {
      if (input.agent !== "title") speakers.set(input.sessionID, input.agent)
    },

    async "tool.execute.before"(input, output) {
      if (disabled) return
      const belt = builtinShellRefusal(speakers.get(input.sessionID), input.tool, deps.options)
      if (belt !== null) throw new Error(belt)
      // The runtime never fails for a database it cannot use (it runs on a stand-in rebuilt from the documents, so a
      // readable draft still bans writes). Should it fail for any other reason, opencode's tools are not Forge's to stop.
      const rt = await openRuntime().catch(() => undefined)
      if (rt === undefined) return
      const session = tree.knownRootOf(input.sessionID) ?? (await tree.rootOf(input.sessionID))
      const refusal = await rt.plans.gate(session, input.tool)
      if (refusal !== null) throw new Error(refusal)
      // Timing starts only for a call that passed every gate: a refused call never runs.
      await watchdog?.["tool.execute.before"](input, output)
    },

    async "tool.execute.after"(input, output) {
      await watchdog?.["tool.execute.after"](input, output)
    },

    async "shell.env"(input, output) {
      if (!disabled) await watchdog?.["shell.env"](input, output)
    },

    async "command.execute.before"(input, output) {
      if (disabled || !ownsPlanCommand || input.command !== "plan") return
      const parts = output.parts as { type: string; text?: string }[]
      // A failing command hook is an HTTP 500 for the user: every trouble is answered in the turn's text instead.
      try {
        const rt = await openRuntime()
        if (rt.storageTrouble !== undefined) return replacePlanCommandText(parts, planTroubleText(storageTroubleText(rt.storageTrouble)))
        await handlePlanCommand(rt, await tree.rootOf(input.sessionID), input.arguments, parts)
      } catch (error) {
        replacePlanCommandText(parts, planTroubleText(`/plan failed: ${error instanceof Error ? error.message : String(error)}`))
      }
    },

    async event({ event }) {
      await watchdog?.event({ event })
      const e = event as SessionEvent
      const info = e.properties?.info
      if ((e.type === "session.created" || e.type === "session.updated") && info?.id) tree.learn(info.id, info.parentID)
      const sessionID = e.properties?.sessionID ?? info?.id
      if (sessionID === undefined || disabled) return
      if (e.type === "session.status") deps.jobs.supervisor.sessionStatus(sessionID, e.properties?.status?.type === "idle" ? "idle" : "busy")
      if (e.type === "session.idle") deps.jobs.supervisor.sessionStatus(sessionID, "idle")
      if (e.type === "session.deleted") {
        tree.forget(sessionID)
        speakers.delete(sessionID)
        await deps.jobs.supervisor.sessionDeleted(sessionID)
      }
    },

    async dispose() {
      await deps.watchdog?.dispose()
      await deps.jobs.supervisor.dispose()
      const open = runtime
      runtime = undefined
      if (open) await (await open.catch(() => undefined))?.close()
    },
  }
}
