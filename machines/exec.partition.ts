// The exec partition, a policy that is no lifecycle: pure predicates with their refusal texts beside them; the
// hooks and tools only call them. Who runs commands how. The forge family (the forge agent and forge-* workers) runs every command through
// forge_shell, which can never hang the session; everyone else keeps opencode's builtin shell untouched.

/** The Forge options the partition reads (a slice of ForgeOptions, so machines/ imports nothing of services/). */
export interface ExecPartitionOptions {
  jobs: { mode: "auto" | "forge" | "native"; keepBuiltinShell: boolean }
}

export const BUILTIN_SHELL_TOOLS: readonly string[] = ["bash", "shell"]
export const JOB_TOOL_IDS = ["forge_shell", "forge_jobs"] as const

export function isForgeFamily(agent: string | undefined): boolean {
  return agent === "forge" || (agent?.startsWith("forge-") ?? false)
}

/** Whether the hang watchdog times a call: builtin shell calls of the forge family, nothing else. */
export function isWatchedShellCall(agent: string | undefined, tool: string): boolean {
  return BUILTIN_SHELL_TOOLS.includes(tool) && isForgeFamily(agent)
}

/** Whether forge_shell/forge_jobs exist at all in this host (jobs.mode "native" retires them). */
export function isSupervisorEnabled(options: ExecPartitionOptions): boolean {
  return options.jobs.mode !== "native"
}

/** Whether the forge family keeps the builtin shell (and the watchdog governs it). */
export function keepsBuiltinShell(options: ExecPartitionOptions): boolean {
  return options.jobs.keepBuiltinShell || options.jobs.mode === "native"
}

/**
 * The refusal belt for hosts that still show the builtin shell to the forge family: null when the call may run.
 * It fires before anything executes, and names the way out.
 */
export function builtinShellRefusal(agent: string | undefined, tool: string, options: ExecPartitionOptions): string | null {
  if (!BUILTIN_SHELL_TOOLS.includes(tool) || !isForgeFamily(agent) || keepsBuiltinShell(options)) return null
  return (
    `exec partition: the ${agent} agent runs commands through forge_shell, not "${tool}" — forge_shell returns on the ` +
    `process exit (never hangs on a background child holding the output) and keeps long jobs in the background. ` +
    `Re-issue the command with forge_shell. (Hosts can give the builtin shell back with the Forge option jobs.keepBuiltinShell: true.)`
  )
}

/** forge_shell / forge_jobs under jobs.mode "native": a pointer to the switch instead of a silent failure. */
export const NATIVE_MODE_REFUSAL =
  'forge_shell and forge_jobs are retired in this host: the Forge option jobs.mode is "native". Use the builtin shell, or set jobs.mode to "auto".'
