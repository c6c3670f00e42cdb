import { activityKindOf } from "../../../machines/goal/goal.gates"
import { pendingGoalDocumentNote } from "../../../machines/goal/goal.refusals"
import { goalStatusOf } from "../../../machines/goal/goal.status"
import { isEveryCheckPassed } from "../../../machines/goal/goal.gates"
import { resultsOf } from "../../../services/goal/goal.runs"
import type { ForgeFragment, FragmentContext } from "../forge.fragment"
import { goalCallFields } from "./goal.screen"
import type { HostGoalsHandle } from "./goal.handle"
import type { Lazy } from "../lazy"
import { type CommandTextPart, presentCommandTurn } from "../plan/plan.command.hook"
import { GOAL_TOOL_IDS, createGoalTools } from "./goal.tools"
import { sandboxEnv } from "../../sandbox/shell.shim"
import { sandboxBashRefusal } from "../sandbox.shell"
import { sessionErrorText } from "../session.errors"

interface SessionEvent {
  type: string
  properties?: { sessionID?: string; status?: { type?: string }; error?: unknown }
}

/** The goal lifecycle's part of the plugin: its tools, /goal, the loop's session events, compaction and restore. */
export function goalFragment(ctx: FragmentContext, goals: Lazy<HostGoalsHandle>): ForgeFragment {
  // The user's own command.goal wins: /goal is Forge's only when the config had none before Forge added it.
  let ownsGoalCommand = false
  const rootOf = (sessionID: string) => ctx.tree.knownRootOf(sessionID) ?? sessionID
  /** The held document status last named after a tool call, per goal: each change is named once. */
  const named = new Map<string, string>()
  /**
   * The goal harness with what every process on the workspace wrote, for a hook that must know the session's goal
   * even where this process never loaded it (the goal was armed in another opencode process). Undefined when the
   * session can hold no lifecycle yet, or the workspace cannot open.
   */
  const harnessFor = async (sessionID: string): Promise<HostGoalsHandle | undefined> => {
    if (ctx.holdsNoLifecycleYet(sessionID) || (await ctx.runtime()) === undefined) return undefined
    const harness = await goals.get().catch(() => undefined)
    await harness?.service.refresh()
    return harness
  }
  return {
    id: "goal",
    toolIds: GOAL_TOOL_IDS,
    tools: createGoalTools({ access: ctx.access, goals: async () => (await goals.get()).service }),
    // A goal dialog says only "Call tool <key>": the line above it says which goal and what the user decides.
    screen({ tool, sessionID, args }) {
      const service = goals.current()?.service
      const root = rootOf(sessionID)
      const live = service?.liveFor(root)
      // attempt_completion is the goal's completion only under a goal that drives the session.
      const completes = tool === "goal_complete" || (tool === "attempt_completion" && live?.hasTag("driving") === true)
      if (!completes && !(GOAL_TOOL_IDS as readonly string[]).includes(tool)) return undefined
      if (service === undefined || live === undefined) return goalCallFields(tool, args, undefined)
      const { goalPath, revision, contract } = live.context
      const latest = service.runs.latestOf(goalPath) ?? null
      // The completion call takes what its line showed: its dialog opens only on a line that showed a passing run.
      if (completes) service.runs.show(root, { run: latest, tool })
      const run =
        latest === null
          ? null
          : {
              id: latest.run,
              entries: latest.entries,
              showable: isEveryCheckPassed({ revision, checkCount: contract.checks.length, run: resultsOf(latest) }),
              current: latest.revision === revision,
            }
      const goal = {
        goalPath,
        status: goalStatusOf(live.value),
        turns: `${live.context.turnsUsed}/${live.context.limits.maxTurns}`,
        checks: contract.checks,
        run,
        audit: live.context.audit !== null,
      }
      return goalCallFields(tool, args, goal)
    },
    hooks: {
      async config(cfg) {
        ownsGoalCommand = (cfg as { command?: Record<string, unknown> }).command?.goal === undefined
      },

      // Progress for the no-progress rule: only sessions whose root has a driving goal in this process count.
      // And the goal's document, after any call of the session: a status it says is followed or held at once (a
      // `sed` through a shell included), and the call that made a held change is told so.
      // A goal auditor's shell runs read-only in the sandbox (never unconfined while the sandbox is on).
      async "shell.env"(input, output) {
        const harness = goals.current()
        const sandbox = input.sessionID === undefined ? null : (harness?.auditSandboxOf(rootOf(input.sessionID)) ?? null)
        if (sandbox !== null) Object.assign(output.env, sandboxEnv(sandbox.argv))
      },

      // The goal audit's write-ban on its auditor session (the machine's answer), and its bash only through the sandbox.
      async "tool.execute.before"(input) {
        const harness = goals.current()
        const session = rootOf(input.sessionID)
        if (harness === undefined || !harness.audits.isAuditor(session)) return
        const refusal = harness.audits.toolRefusal(session, input.tool)
        if (refusal !== null) throw new Error(refusal)
        const trouble = input.tool === "bash" && harness.auditSandboxOf(session) !== null ? ctx.sandboxShell.trouble() : null
        if (trouble !== null) throw new Error(sandboxBashRefusal(`goal ${harness.audits.goalOf(session)?.context.goalPath ?? ""}'s auditor`, trouble))
      },

      async "tool.execute.after"(input, output) {
        const kind = activityKindOf(input.tool)
        const harness = goals.current()
        if (harness === undefined) return
        const session = rootOf(input.sessionID)
        if (kind !== undefined) await harness.loop.activity(session, kind)
        const live = harness.service.liveFor(session)
        if (live === undefined) return
        const after = await harness.service.followDocument(live).catch(() => live)
        const note = pendingGoalDocumentNote(after)
        const goalPath = after.context.goalPath
        if (note === "") named.delete(goalPath)
        else if (named.get(goalPath) !== after.context.pendingDocument && typeof output?.output === "string") {
          named.set(goalPath, String(after.context.pendingDocument))
          if (!(GOAL_TOOL_IDS as readonly string[]).includes(input.tool)) output.output += `\n\n[forge] ${note}`
        }
      },

      async event({ event }) {
        const harness = goals.current()
        if (harness === undefined) return
        const e = event as SessionEvent
        const sessionID = e.properties?.sessionID
        if (sessionID === undefined) return
        // A goal auditor's turn ended, or failed: the audit waiting on it goes on.
        if (harness.auditSessions.waitsOn(sessionID)) {
          if (e.type === "session.idle") await harness.auditSessions.idle(sessionID)
          else if (e.type === "session.error") harness.auditSessions.error(sessionID, sessionErrorText(e.properties?.error))
          return
        }
        // opencode says idle twice (session.status idle, then session.idle): the debounce starts on the second.
        if (e.type === "session.idle") await harness.loop.sessionIdle(sessionID)
        else if (e.type === "session.status" && e.properties?.status?.type !== "idle") await harness.loop.sessionBusy(sessionID)
      },

      // A compaction keeps the goal in view: its brief joins the summary's context — in every process, whichever armed it.
      async "experimental.session.compacting"(input, output) {
        const harness = await harnessFor(input.sessionID)
        const brief = harness === undefined ? undefined : await harness.compactionContext(input.sessionID)
        if (brief !== undefined) output.context.push(brief)
      },

      // The loop alone continues a session with a live goal: opencode's own "continue" after a compaction would start a
      // turn nobody counted. Asked in every process, whichever armed the goal.
      async "experimental.compaction.autocontinue"(input, output) {
        if ((await harnessFor(input.sessionID))?.service.liveFor(input.sessionID) !== undefined) output.enabled = false
      },

      async "command.execute.before"(input, output) {
        if (!ownsGoalCommand || input.command !== "goal") return
        const parts = output.parts as CommandTextPart[]
        // A failing command hook is an HTTP 500 for the user: every trouble is answered in the turn's text instead.
        try {
          await ctx.openRuntime()
          const harness = await goals.get()
          presentCommandTurn(parts, await harness.command(await ctx.tree.rootOf(input.sessionID), input.arguments))
        } catch (error) {
          const text = `/goal failed: ${error instanceof Error ? error.message : String(error)}`
          presentCommandTurn(parts, { model: `[forge:goal] ${text} Tell the user exactly this and stop.`, user: `/goal ${input.arguments}\n${text}` })
        }
      },
    },

    async restore() {
      const report = await (await goals.get()).restore()
      for (const problem of report.problems) ctx.log.warn(`goal ${problem.instanceId}: ${problem.problem}`)
      if (report.restored.length > 0) ctx.log.info(`restored ${report.restored.length} live goal(s)`)
    },

    dispose: async () => goals.current()?.dispose(),
  }
}
