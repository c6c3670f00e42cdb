import { LOOP_TOOL_IDS } from "../../../machines/agent.partition"
import type { ForgeFragment, FragmentContext } from "../forge.fragment"
import type { HostLoopsHandle } from "./loop.handle"
import type { Lazy } from "../lazy"
import { loopCallPaths } from "./loop.call.paths"
import { loopCallFields } from "./loop.screen"
import { createLoopTools } from "./loop.tools"
import { createReviewTools } from "./review.tools"
import { sandboxBashRefusal } from "../sandbox.shell"
import { sandboxEnv } from "../../sandbox/shell.shim"
import type { LiveConfig } from "../config.hook"
import { sessionErrorText } from "../session.errors"

interface SessionEvent {
  type: string
  properties?: { sessionID?: string; error?: unknown; part?: { sessionID?: string }; info?: { sessionID?: string } }
}

/** The loop lifecycle's part of the plugin: its tools, the audit's write-ban, the passes' idles, and its restore. */
export function loopFragment(ctx: FragmentContext, loops: Lazy<HostLoopsHandle>): ForgeFragment {
  const shell = ctx.sandboxShell
  return {
    id: "loop",
    toolIds: LOOP_TOOL_IDS,
    tools: {
      ...createLoopTools({ access: ctx.access, loops: async () => (await loops.get()).service }),
      ...createReviewTools({ access: ctx.access, reviews: async () => (await loops.get()).reviews }),
    },
    // A loop tool's line says which loop and pass it acts for, and what a handoff hands off.
    screen({ tool, sessionID, args }) {
      if (!(LOOP_TOOL_IDS as readonly string[]).includes(tool)) return undefined
      const root = ctx.tree.knownRootOf(sessionID) ?? sessionID
      const harness = loops.current()
      const plan = tool === "loop_start" ? harness?.sessionPlan(root) : undefined
      return loopCallFields(tool, args, harness?.service.whereIs(root), plan)
    },
    hooks: {
      // opencode's shell becomes Forge's shim: a confined session's bash runs in its sandbox, every other one as before.
      async config(cfg) {
        await shell.configure(cfg as LiveConfig)
      },

      // A shell of a loop's session (a pass, or a subagent of one) is put inside the sandbox its loop's machine says.
      async "shell.env"(input, output) {
        if (input.sessionID === undefined || ctx.holdsNoLifecycleYet(input.sessionID)) return
        if ((await ctx.runtime()) === undefined) return
        const harness = await loops.get()
        // Every shell of every session asks: with no loop running, no session's root is looked up.
        if (!harness.service.hasLiveLoop()) return
        const root = ctx.tree.knownRootOf(input.sessionID) ?? (await ctx.tree.rootOf(input.sessionID))
        const sandbox = harness.sandboxOf(root)
        if (sandbox !== null) Object.assign(output.env, sandboxEnv(sandbox.argv))
      },

      // The loop's gate on its sessions' tools (the machine's answer): an auditor changes nothing, a coder works only
      // in the worktree. A subagent of a pass is held to its pass's gate.
      async "tool.execute.before"(input, output) {
        const harness = loops.current()
        const session = ctx.tree.knownRootOf(input.sessionID) ?? input.sessionID
        if (harness?.service.loopOf(session) === undefined) return
        let refusal: string | null
        try {
          refusal = await harness.service.toolRefusal(session, input.tool, await loopCallPaths(input.tool, output.args, ctx.directory))
        } catch (error) {
          // As the plan's gate: a loop Forge cannot consult is logged, and the tool goes ahead.
          ctx.log.error(
            `loop write-ban: the session's loop could not be consulted, so the call goes ahead: ${error instanceof Error ? error.message : String(error)}`,
          )
          return
        }
        if (refusal !== null) throw new Error(refusal)
        // Fail-closed: a confined session's bash runs only through Forge's shim; without it, it does not run.
        const trouble = input.tool === "bash" && harness.sandboxOf(session) !== null ? shell.trouble() : null
        if (trouble !== null) throw new Error(sandboxBashRefusal(`loop ${harness.service.loopOf(session)?.context.loopName ?? ""}'s passes`, trouble))
      },

      // A pass's turn ended: its loop applies the recorded handoff (opencode says idle twice; the second is this one).
      // An error of a pass's turn is counted by its pass (three in a row end the loop).
      async event({ event }) {
        const harness = loops.current()
        const e = event as SessionEvent
        const session = e.properties?.sessionID ?? e.properties?.part?.sessionID ?? e.properties?.info?.sessionID
        if (harness === undefined || session === undefined) return
        // Every event of a pass's session is a sign of life for the stall watch.
        harness.service.noteActivity(session)
        if (e.type === "session.idle") await harness.service.sessionIdle(session)
        else if (e.type === "session.error") await harness.service.sessionError(session, sessionErrorText(e.properties?.error))
      },
    },

    async restore() {
      const report = await (await loops.get()).restore()
      for (const problem of report.problems) ctx.log.warn(`loop ${problem.instanceId}: ${problem.problem}`)
      if (report.restored.length > 0) ctx.log.info(`restored ${report.restored.length} running loop(s)`)
    },

    dispose: async () => loops.current()?.dispose(),
  }
}
