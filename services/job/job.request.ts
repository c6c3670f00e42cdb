import * as z from "zod"
import { DEFAULT_IDLE_MS, DEFAULT_MAX_WAIT_MS, MAX_WAIT_CAP_MS } from "../../machines/job/job.gates"
import type { JobBirthFacts, JobHost, JobInput } from "../../machines/job/job.machine"
import { type SuccessPattern, parseSuccessPattern } from "./success.pattern"
import type { SpawnRequest } from "./job.ports"

// forge_shell's arguments arrive raw (opencode applies no zod defaults), so defaults and bounds are applied here.

export const shellRequestSchema = z.strictObject({
  command: z.string().trim().min(1, "command is empty"),
  cwd: z.string().min(1).optional(),
  success_pattern: z.string().min(1).optional(),
  keep_alive: z.boolean().optional(),
  idle_ms: z.number().int().positive().optional(),
  max_wait_ms: z.number().int().positive().optional(),
  run_in_background: z.boolean().optional(),
  survive: z.boolean().optional(),
  notify: z.boolean().optional(),
})

export type ShellArgs = z.input<typeof shellRequestSchema>

export interface ShellRequest {
  command: string
  /** Absolute working directory. */
  cwd: string
  successPattern: SuccessPattern | null
  keepAlive: boolean
  idleMs: number
  maxWaitMs: number
  background: boolean
  survive: boolean
  notify: boolean
  /** The sandbox command line the command runs inside (a loop pass's shells: bwrap and its options), or null. */
  sandbox: readonly string[] | null
}

export type SurvivePolicy = "never" | "always" | "deny"

/** Validates and completes forge_shell arguments; `resolveCwd` makes a relative cwd absolute and checks it exists. */
export function toShellRequest(
  raw: unknown,
  defaults: { cwd: string; survive: SurvivePolicy; sandbox?: readonly string[] | null },
  resolveCwd: (cwd: string) => string,
): ShellRequest {
  const parsed = shellRequestSchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Error(`forge_shell: ${issue?.path.join(".") || "arguments"}: ${issue?.message ?? "invalid"}`)
  }
  const args = parsed.data
  if (args.survive === true && defaults.survive === "deny") {
    throw new Error('forge_shell: survive: true is refused — jobs.survive is "deny" in this host\'s Forge options, so every job dies with the host.')
  }
  return {
    command: args.command,
    cwd: resolveCwd(args.cwd ?? defaults.cwd),
    successPattern: args.success_pattern === undefined ? null : parseSuccessPattern(args.success_pattern),
    keepAlive: args.keep_alive ?? true,
    idleMs: args.idle_ms ?? DEFAULT_IDLE_MS,
    maxWaitMs: Math.min(args.max_wait_ms ?? DEFAULT_MAX_WAIT_MS, MAX_WAIT_CAP_MS),
    background: args.run_in_background ?? false,
    survive: defaults.survive === "deny" ? false : (args.survive ?? defaults.survive === "always"),
    notify: args.notify ?? true,
    sandbox: defaults.sandbox ?? null,
  }
}

/**
 * The job machine's input for a request: what the job runs, where, under which completion conditions, and the facts
 * its birth gate decides on.
 */
export function jobInputOf(request: ShellRequest, job: { jobId: string; sessionId: string; logFile: string; host: JobHost; birth: JobBirthFacts }): JobInput {
  return {
    ...job,
    command: request.command,
    cwd: request.cwd,
    idleMs: request.idleMs,
    maxWaitMs: request.maxWaitMs,
    hasPattern: request.successPattern !== null,
    keepAlive: request.keepAlive,
    background: request.background,
    notify: request.notify,
    survive: request.survive,
  }
}

/** What the processes port is asked to start for a request: fenced unless it survives, in its sandbox if it has one. */
export function spawnRequestOf(jobId: string, request: ShellRequest, logFile: string): SpawnRequest {
  return { jobId, command: request.command, cwd: request.cwd, logFile, fenced: !request.survive, sandbox: request.sandbox }
}
