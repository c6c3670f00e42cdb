import { CREW_TOOL_IDS } from "../../../machines/agent.partition"
import { pendingCrewDocumentNote } from "../../../machines/crew/crew.refusals"
import { crewStatusOf } from "../../../machines/crew/crew.status"
import type { LiveConfig } from "../config.hook"
import { crewCallFields } from "./crew.screen"
import type { HostCrewsHandle } from "./crew.handle"
import { createCrewTools } from "./crew.tools"
import type { ForgeFragment, FragmentContext } from "../forge.fragment"
import type { Lazy } from "../lazy"
import { type CommandTextPart, presentCommandTurn } from "../plan/plan.command.hook"

/** The crew lifecycle's part of the plugin: its tools, the pending belt on the task tool, /crew, and its restore. */
export function crewFragment(ctx: FragmentContext, crews: Lazy<HostCrewsHandle>): ForgeFragment {
  // The user's own command.crew wins: /crew is Forge's only when the config had none before Forge added it.
  let ownsCrewCommand = false
  /** The held record status last named after a tool call, per crew: each change is named once. */
  const named = new Map<string, string>()
  return {
    id: "crew",
    toolIds: CREW_TOOL_IDS,
    tools: createCrewTools({ access: ctx.access, crews: async () => (await crews.get()).service }),
    screen({ tool, sessionID, args }) {
      if (!(CREW_TOOL_IDS as readonly string[]).includes(tool)) return undefined
      const root = ctx.tree.knownRootOf(sessionID) ?? sessionID
      const live = crews.current()?.service.liveFor(root)
      const crew =
        live === undefined
          ? undefined
          : {
              crewPath: live.context.crewPath,
              status: crewStatusOf(live.value),
              objective: live.context.objective.split("\n", 1)[0] ?? "",
              subtasks: live.context.subtasks,
            }
      return crewCallFields(tool, args, crew)
    },
    hooks: {
      async config(cfg) {
        ownsCrewCommand = (cfg as LiveConfig).command?.crew === undefined
      },

      // The pending belt: while the session's crew pends, every task dispatch is refused (the machine's answer).
      async "tool.execute.before"(input) {
        if (input.tool !== "task" || ctx.holdsNoLifecycleYet(input.sessionID)) return
        // Forge's trouble never stops a tool that is not Forge's: without a runtime there is no crew to hold.
        if ((await ctx.runtime()) === undefined) return
        let refusal: string | null
        try {
          const session = ctx.tree.knownRootOf(input.sessionID) ?? (await ctx.tree.rootOf(input.sessionID))
          refusal = await (await crews.get()).service.dispatchRefusal(session)
        } catch (error) {
          // As the plan's gate: a lifecycle Forge cannot consult is logged, and opencode's own tool goes ahead.
          ctx.log.error(
            `crew belt: the session's crew could not be consulted, so the task call goes ahead: ${error instanceof Error ? error.message : String(error)}`,
          )
          return
        }
        if (refusal !== null) throw new Error(refusal)
      },

      // The crew's record, after any call of the session: a status that would pass a gate the user holds is held at
      // once (a `sed` through a shell included), and the call that made the change is told so.
      async "tool.execute.after"(input, output) {
        const service = crews.current()?.service
        const live = service?.liveFor(ctx.tree.knownRootOf(input.sessionID) ?? input.sessionID)
        if (service === undefined || live === undefined) return
        const after = await service.followRecord(live).catch(() => live)
        const note = pendingCrewDocumentNote(after)
        const crewPath = after.context.crewPath
        if (note === "") named.delete(crewPath)
        else if (named.get(crewPath) !== after.context.pendingDocument && typeof output?.output === "string") {
          named.set(crewPath, String(after.context.pendingDocument))
          if (!(CREW_TOOL_IDS as readonly string[]).includes(input.tool)) output.output += `\n\n[forge] ${note}`
        }
      },

      async "command.execute.before"(input, output) {
        if (!ownsCrewCommand || input.command !== "crew") return
        const parts = output.parts as CommandTextPart[]
        // A failing command hook is an HTTP 500 for the user: every trouble is answered in the turn's text instead.
        try {
          await ctx.openRuntime()
          presentCommandTurn(parts, await (await crews.get()).command(await ctx.tree.rootOf(input.sessionID), input.arguments))
        } catch (error) {
          const text = `/crew failed: ${error instanceof Error ? error.message : String(error)}`
          presentCommandTurn(parts, { model: `[forge:crew] ${text} Tell the user exactly this and stop.`, user: `/crew ${input.arguments}\n${text}` })
        }
      },
    },

    async restore() {
      const report = await (await crews.get()).restore()
      for (const problem of report.problems) ctx.log.warn(`crew ${problem.instanceId}: ${problem.problem}`)
      if (report.restored.length > 0) ctx.log.info(`restored ${report.restored.length} live crew(s)`)
    },
  }
}
