import { existsSync, statSync } from "node:fs"
import path from "node:path"
import type { ToolContext, ToolDefinition } from "@opencode-ai/plugin"
import { DEFAULT_IDLE_MS, DEFAULT_MAX_WAIT_MS } from "../../../machines/job/job.gates"
import type { ForgeOptions } from "../../../services/config/forge.options"
import { NATIVE_MODE_REFUSAL, isSupervisorEnabled } from "../../../machines/exec.partition"
import type { JobSupervisor } from "../../../services/job/job.service"
import { toShellRequest } from "../../../services/job/job.request"
import { jobAnswerFacts } from "../../../services/job/job.report"
import { isWithin, realOf } from "../../workspace/tool.paths"
import { allowsExternalDirectory } from "../external.directory"
import { boundedText } from "../arg.limits"
import { type ForgeToolResult, forgeTool } from "../tool.args"
import { screenText } from "../tool.screen"
import * as z from "zod"
import type { SessionSandbox } from "../../sandbox/loop.sandboxes"

export interface JobToolsDeps {
  options: ForgeOptions
  /** The job supervisor, built on the first call that needs it. */
  supervisor: () => Promise<JobSupervisor>
  /** The root of the calling session's tree, for handoff. */
  rootOf: (sessionId: string) => Promise<string>
  /** The sandbox a session's commands run inside (a loop pass's, a goal auditor's), or null: unconfined. */
  sandboxOf: (sessionId: string) => Promise<SessionSandbox | null>
  /** The interpreter family commands run under, named in the tool description. */
  shellFamily: string
}

// forge_shell and forge_jobs: a shell that can never hang the session. Every forge_shell call passes the
// forge_shell dialog (the config hook forces that permission to "ask"; an explicit deny of the user's wins), but in a
// sealed session (an auditor's, whose shells write nothing and reach no network): it runs unattended, and nobody
// watches its session to answer.

export function createJobTools(deps: JobToolsDeps): Record<"forge_shell" | "forge_jobs", ToolDefinition> {
  const enabled = isSupervisorEnabled(deps.options)
  return {
    forge_shell: forgeTool("forge_shell", {
      description:
        `Run a shell command (${deps.shellFamily} syntax) as a supervised job. Returns on the FIRST of: the process exit (exit code + output tail), ` +
        "a success_pattern match on new output (the process keeps running unless keep_alive is false), idle_ms without new output " +
        "(default 60000; returns still-running with a jobId), or max_wait_ms (default 120000, at most 600000; never kills). " +
        "run_in_background returns the jobId at once. A job you did not see finish wakes this session once when it ends. " +
        "Every result starts with cwd: — the directory the command really ran in.",
      args: {
        command: boundedText("command")
          .refine(
            (command) => !command.includes("\u0000"),
            "holds a NUL byte, which no command line can carry (the shell would run only what stands before it); nothing was run",
          )
          .describe("The command line"),
        cwd: boundedText("path").optional().describe("Working directory (default: the project directory); relative paths are resolved against it"),
        success_pattern: boundedText("pattern")
          .optional()
          .describe(
            "Regex on new output that counts as success (e.g. 'listening on \\d+'); /source/flags with flags i, m, s, u also works (e.g. '/ready/i'). ^ and $ match at line breaks",
          ),
        keep_alive: z.boolean().default(true).describe("After a success_pattern match keep the process running (default true)"),
        idle_ms: z.number().int().positive().default(DEFAULT_IDLE_MS).describe("Return still-running after this long without new output (default 60000)"),
        max_wait_ms: z
          .number()
          .int()
          .positive()
          .default(DEFAULT_MAX_WAIT_MS)
          .describe("Return still-running after this long in any case (default 120000, at most 600000)"),
        run_in_background: z.boolean().default(false).describe("Start and return the jobId immediately"),
        // No schema default: whether a job survives by default is the host's jobs.survive option.
        survive: z.boolean().optional().describe("Let the job outlive this opencode process (adopted by the next start)"),
        notify: z.boolean().default(true).describe("Wake this session when an unread job finishes (default true)"),
      },
      async execute(args, ctx) {
        if (!enabled) throw new Error(NATIVE_MODE_REFUSAL)
        const sandbox = await deps.sandboxOf(ctx.sessionID)
        const request = toShellRequest(args, { cwd: ctx.directory, survive: deps.options.jobs.survive, sandbox: sandbox?.argv ?? null }, (cwd) =>
          resolveCwd(ctx.directory, cwd),
        )
        await askOutsideCwd(request.cwd, ctx)
        if (sandbox?.sealed !== true)
          await ctx.ask({
            permission: "forge_shell",
            patterns: [request.command],
            always: [request.command],
            metadata: { command: request.command, cwd: request.cwd },
          })
        return jobAnswer(await (await deps.supervisor()).run(ctx.sessionID, request))
      },
    }),
    forge_jobs: forgeTool("forge_jobs", {
      description:
        "Manage forge_shell jobs: list; poll {jobId, waitMs ≤ 30000} waits for new output or the end and drains the new output; " +
        "log {jobId, offset, limit} pages the log by line (also of a finished job, while its log exists); kill {jobId} kills the whole process tree; clear {jobId} drops a finished entry; " +
        "handoff {jobId} gives a subagent's job to the root session so it outlives the subagent.",
      args: {
        action: z.enum(["list", "poll", "log", "kill", "clear", "handoff"]),
        jobId: boundedText("name").min(1).optional().describe("The job (every action but list)"),
        waitMs: z.number().int().min(0).max(30_000).default(0).describe("poll: how long to wait for new output or the end"),
        offset: z.number().int().min(1).default(1).describe("log: first line, 1-indexed"),
        limit: z.number().int().min(1).max(2000).default(200).describe("log: how many lines"),
      },
      async execute(args, ctx) {
        if (!enabled) throw new Error(NATIVE_MODE_REFUSAL)
        const supervisor = await deps.supervisor()
        if (args.action === "list") {
          const output = supervisor.list(ctx.sessionID)
          const count = output === "no jobs" ? 0 : output.split("\n").length
          return { output, title: count === 0 ? "No jobs" : `${count} job(s)`, metadata: { jobs: count } }
        }
        const jobId = requireJobId(args.jobId, args.action)
        switch (args.action) {
          case "poll":
            return jobAnswer(await supervisor.poll(jobId, args.waitMs))
          case "log": {
            const output = await supervisor.logLines(jobId, args.offset, args.limit)
            return { output, title: `Log of ${jobId} from line ${args.offset}`, metadata: {} }
          }
          case "kill":
            return plainAnswer(await supervisor.kill(jobId))
          case "clear":
            return plainAnswer(await supervisor.clear(jobId))
          case "handoff":
            return plainAnswer(await supervisor.handoff(jobId, await deps.rootOf(ctx.sessionID)))
        }
      },
    }),
  }
}

/** A job's answer with its title ("Job j-…: exited with exit code 0") and metadata: where it ran, its state, the output's last lines. */
function jobAnswer(output: string): ForgeToolResult {
  const facts = jobAnswerFacts(output)
  const fields: Record<string, string> = {}
  if (facts.cwd !== undefined) fields.dir = facts.cwd
  if (facts.job !== undefined) fields.job = facts.job
  if (facts.status !== undefined) fields.state = facts.status
  fields.output = facts.output === "" ? "(none)" : facts.output
  const title = facts.job === undefined ? screenText(output, 100) : `Job ${facts.job}: ${facts.status ?? "unknown"}`
  return { output, title, metadata: fields }
}

/** An answer of one or two sentences: its first line is the title. */
function plainAnswer(output: string): ForgeToolResult {
  return { output, title: screenText(output.split("\n", 1)[0] ?? "", 120), metadata: {} }
}

function requireJobId(jobId: string | undefined, action: string): string {
  if (jobId === undefined) throw new Error(`forge_jobs: argument "jobId" is missing (action "${action}" needs the job's id; list shows them)`)
  return jobId
}

function resolveCwd(base: string, cwd: string): string {
  const absolute = path.resolve(base, cwd)
  if (!existsSync(absolute) || !statSync(absolute).isDirectory()) throw new Error(`forge_shell: cwd "${cwd}" is not a directory (resolved to ${absolute})`)
  return absolute
}

/**
 * A cwd outside the session's project asks opencode's external_directory permission first, as opencode's own shell
 * does for its workdir (by real path: a link out of the project is outside). A worktree of "/" (no git) covers nothing.
 */
async function askOutsideCwd(cwd: string, ctx: ToolContext): Promise<void> {
  const real = await realOf(cwd)
  const roots = [ctx.directory, ctx.worktree].filter((root) => root !== undefined && root !== "" && root !== path.parse(root).root)
  for (const root of roots) if (isWithin(real, await realOf(path.resolve(root)))) return
  if (!(await allowsExternalDirectory(ctx, real, real)))
    throw new Error(
      `forge_shell: cwd ${cwd} is outside this session's project (${ctx.directory}) and running there was not allowed (the external_directory permission).`,
    )
}
