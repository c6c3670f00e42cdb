import type { PlanMachineStatus } from "./plan.status"

// Pure predicates behind the plan machine's guards. Plain functions so they read (and port) without XState.

/**
 * Whether following a document that says `to` would pass a gate the user holds on a plan that is `from`: approval
 * (to approved, from a draft or an ended plan) or close (to done, from anything else). Once a change is on disk nobody
 * can tell a hand edit from the model's, so such a change waits for the user's dialog; every other change only
 * tightens (back to draft, abandoned, superseded) or says nothing new, and is followed at once.
 */
export function isUserGatedDocumentStatus(from: PlanMachineStatus, to: PlanMachineStatus): boolean {
  if (from === to) return false
  return to === "done" || (to === "approved" && from !== "done")
}

export interface PlanTaskState {
  number: number
  ticked: boolean
}

export interface CriterionCheck {
  criterion: string
  pass: boolean
  evidence: string
}

/** Builtin opencode tools that mutate files, run commands or spawn agents. */
const BANNED_BUILTIN_TOOLS: ReadonlySet<string> = new Set(["write", "edit", "bash", "shell", "task", "patch", "apply_patch", "applypatch", "multiedit"])

/**
 * Forge's own exec and mutating file tools: a draft plan bans them exactly like the builtins. crew_begin and loop_start
 * too: a crew or loop started under a draft would carry out work the user has not approved.
 */
const BANNED_FORGE_TOOLS: ReadonlySet<string> = new Set([
  "forge_shell",
  "forge_jobs",
  "forge_write",
  "forge_patch",
  "forge_remove",
  "forge_undo",
  "forge_rewind",
  "crew_begin",
  "loop_start",
])

/** Whether a draft plan's write-ban refuses this tool. Any tool named like a patch tool counts as a writer. */
export function isWriteBannedTool(tool: string): boolean {
  return BANNED_BUILTIN_TOOLS.has(tool) || BANNED_FORGE_TOOLS.has(tool) || tool.includes("patch")
}

/** The tool names the ban lists by name, for refusal texts and documentation. */
export const WRITE_BANNED_TOOLS: readonly string[] = [...BANNED_BUILTIN_TOOLS, ...BANNED_FORGE_TOOLS]

export function isApprovablePlan(tasks: readonly PlanTaskState[], criteria: readonly string[]): boolean {
  return tasks.length > 0 && criteria.length > 0
}

export function isOpenTask(tasks: readonly PlanTaskState[], task: number): boolean {
  return tasks.some((t) => t.number === task && !t.ticked)
}

export function openTasks(tasks: readonly PlanTaskState[]): number[] {
  return tasks.filter((t) => !t.ticked).map((t) => t.number)
}

export function isEveryTaskTicked(tasks: readonly PlanTaskState[]): boolean {
  return tasks.length > 0 && openTasks(tasks).length === 0
}

/** Criteria compare ignoring case and runs of whitespace: the model restates them, it does not copy bytes. */
export function normalizeCriterion(text: string): string {
  return text.trim().replace(/\s+/g, " ").toLowerCase()
}

export interface CheckCoverage {
  /** Criteria with no passing check that carries evidence. */
  missing: string[]
  /** Criteria with more than one check. */
  duplicated: string[]
  /** Checks naming no criterion of the plan. */
  unknown: string[]
}

export function checkCoverage(criteria: readonly string[], checks: readonly CriterionCheck[]): CheckCoverage {
  const known = new Map(criteria.map((c) => [normalizeCriterion(c), c]))
  const seen = new Map<string, number>()
  const passing = new Set<string>()
  const unknown: string[] = []
  for (const check of checks) {
    const key = normalizeCriterion(check.criterion)
    if (!known.has(key)) {
      unknown.push(check.criterion)
      continue
    }
    seen.set(key, (seen.get(key) ?? 0) + 1)
    if (check.pass && check.evidence.trim() !== "") passing.add(key)
  }
  return {
    missing: criteria.filter((c) => !passing.has(normalizeCriterion(c))),
    duplicated: criteria.filter((c) => (seen.get(normalizeCriterion(c)) ?? 0) > 1),
    unknown,
  }
}

/** Every criterion has exactly one check, and it passed with evidence. */
export function hasPassingCheckPerCriterion(criteria: readonly string[], checks: readonly CriterionCheck[]): boolean {
  const coverage = checkCoverage(criteria, checks)
  return criteria.length > 0 && coverage.missing.length === 0 && coverage.duplicated.length === 0 && coverage.unknown.length === 0
}
