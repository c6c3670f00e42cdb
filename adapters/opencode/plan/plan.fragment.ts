import { storageTroubleText } from "../../../services/lifecycle/storage.trouble"
import type { LiveConfig } from "../config.hook"
import type { ForgeFragment, FragmentContext } from "../forge.fragment"
import type { Lazy } from "../lazy"
import type { HostPlansHandle } from "./plan.handle"
import { type CommandTextPart, handlePlanCommand, presentCommandTurn } from "./plan.command.hook"
import { planCallFields } from "./plan.screen"
import { PLAN_TOOL_IDS, createPlanTools } from "./plan.tools"
import { planTroubleText } from "../prompts/plan.command"

/** The plan lifecycle's part of the plugin: its tools, the draft write-ban on every tool call, and /plan. */
export function planFragment(ctx: FragmentContext, plans: Lazy<HostPlansHandle>): ForgeFragment {
  // The user's own command.plan wins: /plan is Forge's only when the config had none before Forge added it.
  let ownsPlanCommand = false
  return {
    id: "plan",
    toolIds: PLAN_TOOL_IDS,
    // A plan's text: its line shows the size and first lines, never the whole document.
    bodies: { plan_write: ["content"], plan_edit: ["oldString", "newString"] },
    tools: createPlanTools(ctx.access, plans),
    screen({ tool, sessionID, args }) {
      if (!(PLAN_TOOL_IDS as readonly string[]).includes(tool)) return undefined
      const harness = ctx.runtimeNow() === undefined ? undefined : plans.current()
      const root = ctx.tree.knownRootOf(sessionID)
      const planPath = harness !== undefined && root !== undefined ? harness.service.liveFor(root) : undefined
      const plan = planPath === undefined ? undefined : { planPath, summary: harness?.queries.lastSummaryOf(planPath) }
      return planCallFields(tool, args, plan)
    },
    hooks: {
      async config(cfg) {
        ownsPlanCommand = (cfg as LiveConfig).command?.plan === undefined
      },

      async "tool.execute.before"(input) {
        // A session created in this host has no plan before the runtime is open: there is nothing to wait for.
        if (ctx.holdsNoLifecycleYet(input.sessionID)) return
        // The runtime never fails for a database it cannot use (it runs on a stand-in rebuilt from the documents, so a
        // readable draft still bans writes). Should it fail for any other reason, opencode's tools are not Forge's to stop.
        if ((await ctx.runtime()) === undefined) return
        const harness = await plans.get()
        const session = ctx.tree.knownRootOf(input.sessionID) ?? (await ctx.tree.rootOf(input.sessionID))
        const refusal = await harness.service.gate(session, input.tool)
        if (refusal !== null) throw new Error(refusal)
      },

      async "tool.execute.after"(input, output) {
        // A call that changed the plan's document (edit, sed through a shell) is told at once what Forge made of it:
        // a status that would pass a gate the user holds stays pending, and the answer names it.
        if (ctx.holdsNoLifecycleYet(input.sessionID)) return
        const harness = ctx.runtimeNow() === undefined ? undefined : plans.current()
        if (harness === undefined || typeof output?.output !== "string") return
        const session = ctx.tree.knownRootOf(input.sessionID) ?? (await ctx.tree.rootOf(input.sessionID))
        const note = await harness.service.afterTool(session).catch(() => "")
        // A plan tool's own answer already names it (and counts as named).
        if (note !== "" && !(PLAN_TOOL_IDS as readonly string[]).includes(input.tool)) output.output += `\n\n[forge] ${note}`
      },

      async "command.execute.before"(input, output) {
        if (!ownsPlanCommand || input.command !== "plan") return
        const parts = output.parts as CommandTextPart[]
        const trouble = (text: string) => presentCommandTurn(parts, { model: planTroubleText(text), user: `/plan ${input.arguments}`.trimEnd() + `\n${text}` })
        // A failing command hook is an HTTP 500 for the user: every trouble is answered in the turn's text instead.
        try {
          const rt = await ctx.openRuntime()
          if (rt.storageTrouble !== undefined) return trouble(storageTroubleText(rt.storageTrouble))
          await handlePlanCommand(await plans.get(), await ctx.tree.rootOf(input.sessionID), input.arguments, parts)
        } catch (error) {
          trouble(`/plan failed: ${error instanceof Error ? error.message : String(error)}`)
        }
      },
    },
  }
}
