import { CHECK_TIMEOUT_DEFAULT_S, type GoalCheckTerm, MAX_MINUTES_DEFAULT, MAX_TURNS_DEFAULT, NO_PROGRESS_LIMIT } from "../../../machines/goal/goal.gates"
import type { CheckLogLine } from "../../../machines/goal/goal.gates"
import { runEntryText } from "../../../services/goal/goal.runs"
import { countOf } from "../../../services/text/count.text"
import type { ScreenFields } from "../tool.screen"

// What a goal tool's call shows on its TUI line (see tool.screen.ts): which goal it acts on and, for the calls that
// open a dialog, what the user decides there — for an arm (the model's objective is on the line already) the criteria, every check the host will run
// with what it expects, the budgets and when the goal stops; every attestation for a completion. Built without
// waiting, from what this process already holds: the session's live goal. The line is kept after the call, so what
// it says of the goal is said as of the call ("active at turn 3/25"), never as if it were current.

/** The session's live goal, as this process knows it. */
export interface ScreenGoal {
  goalPath: string
  status: string
  turns: string
  /** The checks of its contract, which a completion has the host re-run. */
  checks: readonly GoalCheckTerm[]
  /** The latest run of its checks this process made, which a completion's line shows; null when none ran yet. */
  run: ScreenRun | null
  /** Whether completing needs a clean audit too (`--audit`). */
  audit?: boolean
}

/** A run of a goal's checks, as a completion's line shows it. */
export interface ScreenRun {
  id: string
  entries: readonly CheckLogLine[]
  /** Whether it is a pass of every check of the contract as it stands: only such a run opens the completion dialog. */
  showable: boolean
  /** Whether it ran the contract's current revision. */
  current: boolean
}

/** When an armed goal stops, as the goal loop decides it (docs/goals.md). */
const STOP_RULE =
  "done only when you allow goal_complete after the host's own run of every check passes; " +
  `pauses when a budget runs out, after ${NO_PROGRESS_LIMIT} turns in a row without progress, or on /goal pause`

/** What `--audit` adds to a goal's completion. */
const AUDIT_RULE = "once the checks pass, an auditor session Forge opens reviews the work since the arm, read-only, and a bug it records keeps the goal open"

export function goalCallFields(tool: string, args: unknown, goal: ScreenGoal | undefined): ScreenFields {
  const a = recordOf(args) ?? {}
  const fields: ScreenFields = {}
  const revise = a.revise === true
  if (goal !== undefined && (tool !== "goal_write" || revise)) Object.assign(fields, { path: goal.goalPath, "at call": `${goal.status} at turn ${goal.turns}` })
  switch (tool) {
    case "goal_write":
      if (!revise) fields.decide = a.arm === false ? "queue (no dialog)" : "arm: the session then works on it by itself"
      Object.assign(fields, listFields("success", a.success), checkFields(a.checks))
      if (a.audit === true && !revise) fields["audit rule"] = AUDIT_RULE
      fields.budgets = budgetsText(a, revise)
      if (!revise && a.arm !== false) fields.stops = STOP_RULE
      return fields
    case "goal_complete":
      return Object.assign(fields, completionFields(goal), attestationFields(a.attestations))
    case "attempt_completion":
      // Under a goal that drives the session, the result is the evidence for every criterion of its completion.
      return Object.assign(fields, completionFields(goal))
    case "goal_resume":
      fields.decide = "resume: the session works on it by itself again"
      return fields
    case "goal_discard":
      fields.decide = "discard"
      return fields
    default:
      return fields
  }
}

/**
 * What a completion's dialog decides on: the host's latest run, each check with its exit, time and verdict (the line is
 * drawn before the call runs anything, so it shows the run before it). The dialog opens only where that run passed
 * every check; the host runs them once more first. Without such a run the completion gate refuses the call, with its own run.
 */
function completionFields(goal: ScreenGoal | undefined): ScreenFields {
  const run = goal?.run ?? null
  const fields: ScreenFields = {}
  if (run?.showable === true) {
    fields.decide =
      goal?.audit === true
        ? "complete: the host runs every check once more first, then an auditor session reviews the work (read-only); this dialog opens only if each check passes again and the audit leaves no bug open"
        : "complete: the host runs every check once more first, and this dialog opens only if each passes again"
    fields.run = `${run.id} at ${run.entries.at(-1)?.at.replace(/\.\d+Z$/, "Z") ?? "?"}: every check passed`
  } else {
    fields.decide = `no dialog yet: ${run === null ? "no run of the checks to show" : "the last run is no pass of every check"}; the host runs every check now and the completion gate refuses this call with that run, which the next call's dialog shows`
    if (run !== null) fields.run = `${run.id}${run.current ? "" : " (of an earlier revision of the contract)"}`
  }
  if (run !== null) for (const entry of run.entries) fields[`ran ${entry.item}`] = runEntryText(entry)
  else if (goal !== undefined)
    Object.assign(
      fields,
      checkFields(goal.checks.map((c) => (c.kind === "command" ? { command: c.command, timeout: c.timeoutS } : { file: c.file, text: c.text }))),
    )
  return fields
}

/**
 * `check 1` = "`npm test` exits 0 within 120 s" or "README.md contains …", for every well-formed check of the call:
 * what the host runs and what it expects.
 */
function checkFields(checks: unknown): ScreenFields {
  if (!Array.isArray(checks)) return {}
  const fields: ScreenFields = {}
  checks.forEach((check, i) => {
    const c = recordOf(check)
    const timeout = typeof c?.timeout === "number" ? c.timeout : CHECK_TIMEOUT_DEFAULT_S
    if (typeof c?.command === "string") fields[`check ${i + 1}`] = `\`${c.command}\` exits 0 within ${timeout} s`
    else if (typeof c?.file === "string" && typeof c.text === "string") fields[`check ${i + 1}`] = `${c.file} contains ${c.text}`
  })
  return fields
}

/** `success 1` = the first criterion, …: every text of a list argument under one numbered name. */
function listFields(name: string, items: unknown): ScreenFields {
  if (!Array.isArray(items)) return {}
  const fields: ScreenFields = {}
  items.forEach((item, i) => {
    if (typeof item === "string") fields[`${name} ${i + 1}`] = item
  })
  return fields
}

/** "25 turns, 120 min, no cost or token limit": the limits the goal will run under (a revision keeps what it omits). */
function budgetsText(a: Record<string, unknown>, revise: boolean): string {
  const given = (key: string) => (typeof a[key] === "number" ? (a[key] as number) : undefined)
  const turns = given("maxTurns")
  const minutes = given("maxMinutes")
  const cost = given("maxCost")
  const tokens = given("maxTokens")
  if (revise) {
    const changed = [
      turns === undefined ? "" : countOf(turns, "turn"),
      minutes === undefined ? "" : `${minutes} min`,
      cost === undefined ? "" : `$${cost}`,
      tokens === undefined ? "" : countOf(tokens, "token"),
    ].filter((part) => part !== "")
    return changed.length === 0 ? "kept" : `${changed.join(", ")} (the others kept)`
  }
  const limits = [countOf(turns ?? MAX_TURNS_DEFAULT, "turn"), `${minutes ?? MAX_MINUTES_DEFAULT} min`]
  if (cost !== undefined) limits.push(`$${cost}`)
  if (tokens !== undefined) limits.push(countOf(tokens, "token"))
  const unlimited = [cost === undefined ? "cost" : "", tokens === undefined ? "token" : ""].filter((word) => word !== "")
  if (unlimited.length > 0) limits.push(`no ${unlimited.join(" or ")} limit`)
  return limits.join(", ")
}

/** `ATTEST 1` = "criterion — evidence", for every well-formed attestation of the call. */
function attestationFields(attestations: unknown): ScreenFields {
  if (!Array.isArray(attestations)) return {}
  const fields: ScreenFields = {}
  attestations.forEach((attestation, i) => {
    const a = recordOf(attestation)
    if (typeof a?.criterion === "string" && typeof a.evidence === "string") fields[`ATTEST ${i + 1}`] = `${a.criterion} — ${a.evidence}`
  })
  return fields
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}
