import path from "node:path"
import { JOB_TOOL_IDS, builtinShellRefusal } from "../../../machines/exec.partition"
import type { JobSupervisor } from "../../../services/job/job.service"
import type { LifecycleRepository } from "../../../services/lifecycle/lifecycle.ports"
import type { ForgeFragment, FragmentContext } from "../forge.fragment"
import type { Lazy } from "../lazy"
import { createJobTools } from "./job.tools"
import type { SessionSandbox } from "../../sandbox/loop.sandboxes"
import { refuseSurviveWithoutDatabase } from "./job.tools.storage"

export interface JobFragmentDeps {
  /** The job supervisor of this host process, built on first use; the shell family its commands run under. */
  supervisor: Lazy<JobSupervisor>
  /** The sandbox of a root session's commands (a loop pass's, a goal auditor's), built with the supervisor. */
  sandboxOf: Lazy<(sessionId: string) => SessionSandbox | null>
  shellFamily: string
  /** The workspace database's lifecycle records (the runtime's, or its stand-in's), for the restore step. */
  repository: () => Promise<LifecycleRepository | undefined>
}

interface SessionEvent {
  type: string
  properties?: { sessionID?: string; info?: { id?: string }; status?: { type?: string } }
}

/** The job lifecycle's part of the plugin: forge_shell and forge_jobs, the builtin-shell belt, wakes and restore. */
export function jobFragment(ctx: FragmentContext, deps: JobFragmentDeps): ForgeFragment {
  const { supervisor } = deps
  const jobTools = createJobTools({
    options: ctx.options,
    supervisor: () => supervisor.get(),
    rootOf: (id) => ctx.tree.rootOf(id),
    sandboxOf: async (id) => (await deps.sandboxOf.get())(await ctx.tree.rootOf(id)),
    shellFamily: deps.shellFamily,
  })
  const storageTrouble = async () => (await ctx.runtime())?.storageTrouble
  return {
    id: "job",
    toolIds: JOB_TOOL_IDS,
    tools: { ...jobTools, forge_shell: refuseSurviveWithoutDatabase(jobTools.forge_shell, ctx.options, storageTrouble) },
    // The forge_shell dialog says only "Call tool forge_shell": the line above it says where the command will run.
    screen({ tool, args }) {
      if (tool !== "forge_shell") return undefined
      const cwd = (args as { cwd?: unknown } | null)?.cwd
      return { dir: path.resolve(ctx.directory, typeof cwd === "string" ? cwd : ".") }
    },
    hooks: {
      async "tool.execute.before"(input) {
        const belt = builtinShellRefusal(ctx.speakerOf(input.sessionID), input.tool, ctx.options)
        if (belt !== null) throw new Error(belt)
      },

      async event({ event }) {
        // No supervisor yet, no job of this host: a session it learns of later is asked for its status then.
        const jobs = supervisor.current()
        if (jobs === undefined) return
        const e = event as SessionEvent
        const sessionID = e.properties?.sessionID ?? e.properties?.info?.id
        if (sessionID === undefined) return
        if (e.type === "session.status") jobs.sessionStatus(sessionID, e.properties?.status?.type === "idle" ? "idle" : "busy")
        if (e.type === "session.idle") jobs.sessionStatus(sessionID, "idle")
        if (e.type === "session.deleted") await jobs.sessionDeleted(sessionID)
      },
    },

    // What earlier hosts left is worth a warning, never the plans' gates: a failed job restore is logged and passed.
    async restore() {
      const repository = await deps.repository()
      if (repository === undefined) return
      const restored = await (await supervisor.get()).restore(repository)
      for (const problem of restored.problems) ctx.log.warn(problem)
      if (restored.adopted.length > 0) ctx.log.info(`adopted ${restored.adopted.length} survive job(s) from a previous run`)
      if (restored.takenOver.length > 0) ctx.log.info(`took over ${restored.takenOver.length} finished job(s) of a previous run whose result is still owed`)
    },

    dispose: async () => supervisor.current()?.dispose(),
  }
}
