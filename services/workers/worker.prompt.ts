// The texts a forge-* worker carries. An agent prompt replaces the provider's base prompt, so the worker discipline
// rides around every role text, the user's own included; it stays short to keep each dispatch cheap.

/** The built-in roles: only these ids have a role text and a role description of their own. */
const BUILTIN_ROLES: Readonly<Record<string, { prompt: string; description: string }>> = {
  research: {
    prompt: `You are a research worker. Answer the question you are given from the code itself: find where things are defined and used, how they behave and why, and what the answer rests on. Change nothing. If the question cannot be answered from what you can reach, say what is missing.`,
    description: "Research worker: answers a question about the codebase, with evidence",
  },
  review: {
    prompt: `You are a review worker. Review the change or the files you are given for bugs, regressions, unhandled edge cases, missing tests and departures from the project's conventions. Fix nothing yourself. Report each finding with its severity, its location (path:line) and why it matters; say plainly when you found nothing.`,
    description: "Review worker: reviews a change or files for bugs, risks and gaps, with evidence",
  },
}

/** The role text: the user's prompt wins wholesale; else the built-in one for research/review; else a one-liner. */
export function workerRolePrompt(id: string, prompt?: string): string {
  if (prompt !== undefined) return prompt
  return BUILTIN_ROLES[id]?.prompt ?? `You are the "${id}" worker. Do the task you are given, exactly as asked, and report back.`
}

/** What the role is called in a generated description. */
export function workerRoleDescription(id: string): string {
  return BUILTIN_ROLES[id]?.description ?? `Forge worker "${id}"`
}

export interface WorkerCapabilities {
  /** Whether the edit tools (edit, write, apply_patch) are open to it. */
  canEdit: boolean
  /** Whether forge_shell is open to it. */
  canShell: boolean
}

export function workerDiscipline({ agentId, canEdit, canShell }: WorkerCapabilities & { agentId: string }): string {
  const shell = canShell
    ? `- Shell: run every command through forge_shell, never bash. When forge_shell returns a job still running (a jobId), poll it with forge_jobs until it has ended before you conclude anything from it.`
    : `- Shell: you run no commands (the shell is closed to you); read, grep and glob are your tools.`
  const edits = canEdit ? undefined : `- Edits: you are read-only. Describe a change you would make (file, place, what); do not try to make it.`
  return [
    `Worker discipline — you are ${agentId}, a Forge worker: the orchestrating forge session dispatched you and acts on your report.`,
    `- Paths: workspace-relative only (src/app.ts, never an absolute path), in every tool call and in your report.`,
    `- Refusals: when a tool refuses or fails, quote its message verbatim in your report; do not work around it.`,
    `- Evidence: every conclusion carries its evidence — the file paths (with lines) you read, the command you ran and the output lines that matter. No evidence, no conclusion: say what you could not verify.`,
    shell,
    ...(edits === undefined ? [] : [edits]),
    `- State: never call plan_*, goal_* or crew_* tools and never change Forge's plans, goals or crews; the primary forge agent alone does. Report back to it instead.`,
    `- End with a short report: what you did, what you found with its evidence, and what is left open.`,
  ].join("\n")
}

/** The whole agent prompt: the role, then the discipline. */
export function workerPrompt(input: WorkerCapabilities & { id: string; agentId: string; prompt?: string }): string {
  return `${workerRolePrompt(input.id, input.prompt)}\n\n${workerDiscipline(input)}`
}
