// Pure predicates behind the goal machine's guards. Times are epoch milliseconds carried by events; money in USD.

/** The seed's limits: two continuation turns without activity, three failed sends in a row. */
export const NO_PROGRESS_LIMIT = 2
export const TRANSPORT_FAILURE_LIMIT = 3
/** How long the session must stay idle before the loop decides (the debounce): the default of a goal's input. */
export const GOAL_DEBOUNCE_MS = 2_000
/** The contract's limits, as the seed gives them: check timeouts, turns and minutes, each with its hard ceiling. */
export const CHECK_TIMEOUT_DEFAULT_S = 120
export const CHECK_TIMEOUT_MAX_S = 600
export const MAX_TURNS_DEFAULT = 25
export const GOAL_MAX_TURNS_CEILING = 200
export const MAX_MINUTES_DEFAULT = 60
export const GOAL_MAX_MINUTES_CEILING = 480

/** Why a goal is paused: the user or the model asked, or one of the loop's own pause rules fired. */
import type { GoalMachineStatus } from "./goal.status"

export const GOAL_STOP_REASONS = [
  "user",
  "blocker",
  "no-progress",
  "budget-turns",
  "budget-time",
  "budget-cost",
  "budget-tokens",
  "draft-conflict",
  "transport-failures",
] as const
export type GoalStopReason = (typeof GOAL_STOP_REASONS)[number]

/**
 * Whether following a goal document that says `to` would pass a gate the user holds on a goal that is `from`:
 * completion (to completed) or the arm and resume dialogs (to active, from queued or paused). Once a change is on
 * disk nobody can tell a hand edit from the model's, so such a change waits for the user's dialog; a pause or a
 * discard only tightens.
 */
export function isUserGatedGoalDocumentStatus(from: GoalMachineStatus, to: GoalMachineStatus): boolean {
  if (from === to) return false
  return to === "completed" || (to === "active" && (from === "queued" || from === "paused"))
}

/** A check the host re-runs itself: a command that must exit 0 in time, or a file that must contain a text. */
export type GoalCheckTerm = { kind: "command"; command: string; timeoutS: number } | { kind: "contains"; file: string; text: string }

/** What a goal promises: kept in the snapshot so a hand edit of the document can be told apart and described. */
export interface GoalTerms {
  objective: string
  success: string[]
  checks: GoalCheckTerm[]
  constraints: string[]
  nonGoals: string[]
}

export interface GoalLimits {
  maxTurns: number
  maxMinutes: number
  maxCost: number | null
  maxTokens: number | null
}

/** What a continuation turn did: writes, forge_shell runs, checks and plan ticks all count as progress. */
export interface TurnActivity {
  writes: number
  shell: number
  checks: number
  ticks: number
}

export const NO_ACTIVITY: TurnActivity = { writes: 0, shell: 0, checks: 0, ticks: 0 }

export function hasActivity(activity: TurnActivity): boolean {
  return activity.writes + activity.shell + activity.checks + activity.ticks > 0
}

/** What the session has spent since the goal was armed, counted from its assistant messages. */
export interface GoalSpend {
  cost: number
  tokens: number
}

/**
 * The birth gate: a write that asks to arm its goal at once while the writing session holds a live goal is refused
 * (one live goal per session; queuing it beside the live one is fine). Facts a restored record lacks (null) never
 * refuse: such a goal is past its birth.
 */
export function isArmBlockedByLiveGoal(birth: { armAsked: boolean; liveGoal: object | null } | null): boolean {
  if (birth === null) return false
  return birth.armAsked && birth.liveGoal !== null
}

/** A goal can be armed only with something the host can verify: at least one check. */
export function isArmableContract({ checkCount }: { checkCount: number }): boolean {
  return checkCount > 0
}

/**
 * The turn that just ended makes the streak of continuation turns without activity reach the limit. Only a turn the
 * loop started counts: the user's own turns never pause a goal.
 */
export function isNoProgress({ turnOpen, activity, idleStreak }: { turnOpen: boolean; activity: TurnActivity; idleStreak: number }): boolean {
  return turnOpen && !hasActivity(activity) && idleStreak + 1 >= NO_PROGRESS_LIMIT
}

export function isTurnBudgetSpent({ turnsUsed, limits }: { turnsUsed: number; limits: GoalLimits }): boolean {
  return turnsUsed >= limits.maxTurns
}

/** Minutes are counted from the arm (the anchor's newer behaviour), so a restart keeps the time already spent. */
export function isTimeBudgetSpent({ now, armedAt, limits }: { now: number; armedAt: number | null; limits: GoalLimits }): boolean {
  return armedAt !== null && now - armedAt >= limits.maxMinutes * 60_000
}

export function isCostBudgetSpent({ spend, limits }: { spend: GoalSpend; limits: GoalLimits }): boolean {
  return limits.maxCost !== null && spend.cost >= limits.maxCost
}

export function isTokenBudgetSpent({ spend, limits }: { spend: GoalSpend; limits: GoalLimits }): boolean {
  return limits.maxTokens !== null && spend.tokens >= limits.maxTokens
}

/** What a resume adds to the budgets (a cost or token budget only where the goal has one). */
export interface BudgetAdditions {
  addTurns: number
  addMinutes: number
  addCost?: number
  addTokens?: number
}

/** The limits a resume asks for: turns and minutes added, each kept under its hard ceiling; cost and tokens added. */
export function resumedLimits({ limits, addTurns, addMinutes, addCost = 0, addTokens = 0 }: { limits: GoalLimits } & BudgetAdditions): GoalLimits {
  return {
    maxTurns: Math.min(limits.maxTurns + addTurns, GOAL_MAX_TURNS_CEILING),
    maxMinutes: Math.min(limits.maxMinutes + addMinutes, GOAL_MAX_MINUTES_CEILING),
    maxCost: limits.maxCost === null ? null : limits.maxCost + addCost,
    maxTokens: limits.maxTokens === null ? null : limits.maxTokens + addTokens,
  }
}

/** A resume is worth a dialog only if every budget (after what it adds) leaves room for a turn: spend as last counted. */
export function hasBudgetLeft({
  now,
  armedAt,
  turnsUsed,
  spend,
  limits,
}: {
  now: number
  armedAt: number | null
  turnsUsed: number
  spend: GoalSpend
  limits: GoalLimits
}): boolean {
  return (
    !isTurnBudgetSpent({ turnsUsed, limits }) &&
    !isTimeBudgetSpent({ now, armedAt, limits }) &&
    !isCostBudgetSpent({ spend, limits }) &&
    !isTokenBudgetSpent({ spend, limits })
  )
}

export function isDueAt({ now, dueAt }: { now: number; dueAt: number | null }): boolean {
  return dueAt !== null && now >= dueAt
}

export function isTransportFailureLimit({ transportFailures }: { transportFailures: number }): boolean {
  return transportFailures + 1 >= TRANSPORT_FAILURE_LIMIT
}

/** One attestation the model gives for a success criterion at completion. */
export interface Attestation {
  criterion: string
  evidence: string
}

/** Criteria compare ignoring case and runs of whitespace: the model restates them, it does not copy bytes. */
function normalize(text: string): string {
  return text.trim().replace(/\s+/g, " ").toLowerCase()
}

export interface AttestationCoverage {
  missing: string[]
  duplicated: string[]
  unknown: string[]
}

/** Which criteria lack an attestation with evidence, which have several, and which attestations name none. */
export function attestationCoverage({ criteria, attestations }: { criteria: readonly string[]; attestations: readonly Attestation[] }): AttestationCoverage {
  const known = new Set(criteria.map(normalize))
  const seen = new Map<string, number>()
  const unknown: string[] = []
  for (const attestation of attestations) {
    const key = normalize(attestation.criterion)
    if (!known.has(key)) unknown.push(attestation.criterion)
    else if (attestation.evidence.trim() !== "") seen.set(key, (seen.get(key) ?? 0) + 1)
  }
  return {
    missing: criteria.filter((c) => (seen.get(normalize(c)) ?? 0) === 0),
    duplicated: criteria.filter((c) => (seen.get(normalize(c)) ?? 0) > 1),
    unknown,
  }
}

export function hasOneAttestationPerCriterion(args: { criteria: readonly string[]; attestations: readonly Attestation[] }): boolean {
  const coverage = attestationCoverage(args)
  return coverage.missing.length === 0 && coverage.duplicated.length === 0 && coverage.unknown.length === 0
}

/** One line of the goal's Check Log: one check of one run, for one revision (idempotent per run, revision and item). */
export interface CheckLogLine {
  /** ISO time the check finished. */
  at: string
  run: string
  revision: number
  item: number
  pass: boolean
  ms: number
  label: string
  detail: string
}

/** The outcome of one check in the host's own run at the completion gate. */
export interface CheckRun {
  item: number
  pass: boolean
}

/** Every check of the current revision passed in this run: none missing, none failing, none run for another revision. */
export function isEveryCheckPassed({
  revision,
  checkCount,
  run,
}: {
  revision: number
  checkCount: number
  run: { revision: number; results: readonly CheckRun[] }
}): boolean {
  if (run.revision !== revision || checkCount === 0) return false
  const passed = new Set(run.results.filter((r) => r.pass).map((r) => r.item))
  for (let item = 1; item <= checkCount; item++) if (!passed.has(item)) return false
  return true
}

/**
 * Whether the user saw what the completion dialog asks them to decide on: the call's line showed a run that passed
 * every check of the current revision. A harness that draws no line (`shown` absent) shows the run in the dialog.
 */
export function isShownRunPassed({
  revision,
  checkCount,
  shown,
}: {
  revision: number
  checkCount: number
  shown: { run: { revision: number; results: readonly CheckRun[] } | null } | undefined
}): boolean {
  return shown === undefined || (shown.run !== null && isEveryCheckPassed({ revision, checkCount, run: shown.run }))
}

const SHELL_TOOLS: ReadonlySet<string> = new Set(["forge_shell", "bash", "shell"])
const WRITE_TOOLS: ReadonlySet<string> = new Set([
  "write",
  "edit",
  "multiedit",
  "patch",
  "apply_patch",
  "forge_write",
  "forge_patch",
  "forge_remove",
  "forge_undo",
])

/** What a finished tool call counts as for the no-progress rule (goal_check counts through the Check Log), if anything. */
export function activityKindOf(tool: string): keyof TurnActivity | undefined {
  if (SHELL_TOOLS.has(tool)) return "shell"
  if (WRITE_TOOLS.has(tool)) return "writes"
  if (tool === "plan_tick") return "ticks"
  return undefined
}
