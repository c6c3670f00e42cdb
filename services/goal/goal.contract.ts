import { parseArgs } from "node:util"
import { split } from "shlex"
import {
  CHECK_TIMEOUT_DEFAULT_S,
  CHECK_TIMEOUT_MAX_S,
  GOAL_MAX_MINUTES_CEILING as MAX_MINUTES_CEILING,
  GOAL_MAX_TURNS_CEILING as MAX_TURNS_CEILING,
  MAX_MINUTES_DEFAULT,
  MAX_TURNS_DEFAULT,
  type GoalCheckTerm,
  type GoalLimits,
  type GoalTerms,
} from "../../machines/goal/goal.gates"

// `/goal <objective>`'s contract markers, read the way a shell reads a command line: quotes and escapes through a
// real POSIX tokenizer (shlex), the markers through Node's strict argument parser, in the order they were written
// (a `--timeout` belongs to the `--check` before it). Every mistake is an error naming the marker and the value.

export { CHECK_TIMEOUT_DEFAULT_S, CHECK_TIMEOUT_MAX_S, MAX_MINUTES_CEILING, MAX_MINUTES_DEFAULT, MAX_TURNS_CEILING, MAX_TURNS_DEFAULT }

/** A check the host re-runs itself: a command that must exit 0 in time, or a file that must contain a text. */
export type GoalCheck = GoalCheckTerm

export interface GoalBudgets {
  maxTurns: number
  maxMinutes: number
  /** USD, counted from the session's assistant messages; none when not given. */
  maxCost?: number
  maxTokens?: number
}

/** What `/goal` and goal_write give: the terms the machine keeps, plus the budgets. */
export interface GoalContract extends GoalTerms {
  budgets: GoalBudgets
  /** `--audit`: completing also needs a clean audit by an auditor session (fixed at the goal's birth). */
  audit?: boolean
}

export class GoalContractError extends Error {
  constructor(message: string) {
    super(`/goal: ${message}`)
    this.name = "GoalContractError"
  }
}

const OPTIONS = {
  check: { type: "string", multiple: true },
  timeout: { type: "string", multiple: true },
  contains: { type: "string", multiple: true },
  success: { type: "string", multiple: true },
  constraint: { type: "string", multiple: true },
  "non-goal": { type: "string", multiple: true },
  "max-turns": { type: "string" },
  "max-minutes": { type: "string" },
  "max-cost": { type: "string" },
  "max-tokens": { type: "string" },
  audit: { type: "boolean" },
} as const

/** Reads `/goal`'s arguments into a contract, or throws a GoalContractError that says what is wrong and where. */
export function parseGoalContract(raw: string): GoalContract {
  const { tokens, values } = parseMarkers(tokenize(raw))
  const contract: GoalContract = {
    objective: tokens
      .filter((t) => t.kind === "positional")
      .map((t) => t.value)
      .join(" ")
      .trim(),
    checks: [],
    success: nonEmpty("--success", values.success),
    constraints: nonEmpty("--constraint", values.constraint),
    nonGoals: nonEmpty("--non-goal", values["non-goal"]),
    ...(values.audit === true ? { audit: true } : {}),
    budgets: {
      maxTurns: count("--max-turns", values["max-turns"], MAX_TURNS_DEFAULT, MAX_TURNS_CEILING),
      maxMinutes: count("--max-minutes", values["max-minutes"], MAX_MINUTES_DEFAULT, MAX_MINUTES_CEILING),
      ...optional("maxCost", values["max-cost"], (text) => positiveNumber("--max-cost", text)),
      ...optional("maxTokens", values["max-tokens"], (text) => count("--max-tokens", text, 0, Number.MAX_SAFE_INTEGER)),
    },
  }
  for (const token of tokens) {
    if (token.kind !== "option" || token.value === undefined) continue
    if (token.name === "check") contract.checks.push({ kind: "command", command: required("--check", token.value), timeoutS: CHECK_TIMEOUT_DEFAULT_S })
    if (token.name === "contains") contract.checks.push(containsCheck(token.value))
    if (token.name === "timeout") {
      const last = contract.checks.at(-1)
      if (last?.kind !== "command") throw new GoalContractError(`--timeout ${token.value} must follow the --check it limits`)
      last.timeoutS = count("--timeout", token.value, CHECK_TIMEOUT_DEFAULT_S, CHECK_TIMEOUT_MAX_S)
    }
  }
  if (contract.objective === "")
    throw new GoalContractError('the objective is missing: write it before or between the markers, e.g. /goal fix the login timeout --check "npm test"')
  return contract
}

function tokenize(raw: string): string[] {
  try {
    return split(raw)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new GoalContractError(
      `the arguments cannot be read (${reason}): close every quote, and escape a lone quote or apostrophe with \\ (e.g. don\\'t) — in: ${raw}`,
    )
  }
}

function parseMarkers(args: string[]) {
  try {
    return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true, tokens: true })
  } catch (error) {
    // Node names the option ("Unknown option '--chek'", "Option '--check <value>' argument missing").
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").replace(/\.$/, "")
    throw new GoalContractError(
      `${reason}. Markers: ${Object.keys(OPTIONS)
        .map((o) => `--${o}`)
        .join(", ")}`,
    )
  }
}

/** `--contains "file::text"`: the file is split off at the first `::`. */
function containsCheck(value: string): GoalCheck {
  const at = value.indexOf("::")
  if (at < 0) throw new GoalContractError(`--contains "${value}" needs "file::text" (the file, two colons, the text it must contain)`)
  const file = value.slice(0, at).trim()
  const text = value.slice(at + 2)
  if (file === "" || text === "") throw new GoalContractError(`--contains "${value}" needs both a file and a text around "::"`)
  return { kind: "contains", file, text }
}

function required(marker: string, value: string): string {
  if (value.trim() === "") throw new GoalContractError(`${marker} is empty`)
  return value
}

function nonEmpty(marker: string, values: readonly string[] | undefined): string[] {
  return (values ?? []).map((value) => required(marker, value).trim())
}

/** A whole number from 1 to `ceiling`; `fallback` when not given. */
function count(marker: string, text: string | undefined, fallback: number, ceiling: number): number {
  if (text === undefined) return fallback
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new GoalContractError(`${marker} ${text} must be a whole number of at least 1`)
  if (Number(text) > ceiling) throw new GoalContractError(`${marker} ${text} exceeds the ceiling of ${ceiling}`)
  return Number(text)
}

function positiveNumber(marker: string, text: string): number {
  const value = Number(text)
  if (!/^\d+(\.\d+)?$/.test(text) || !(value > 0)) throw new GoalContractError(`${marker} ${text} must be a positive amount (e.g. 2.50)`)
  return value
}

/** `{ [key]: value }` for a budget that was given, `{}` for one that was not. */
function optional<K extends string>(key: K, text: string | undefined, read: (text: string) => number): Partial<Record<K, number>> {
  return text === undefined ? {} : ({ [key]: read(text) } as Record<K, number>)
}

/** The contract without its budgets, as the machine keeps it. */
export function termsOf({ budgets: _budgets, audit: _audit, ...terms }: GoalContract): GoalTerms {
  return terms
}

export function limitsOf(contract: GoalContract): GoalLimits {
  return {
    maxTurns: contract.budgets.maxTurns,
    maxMinutes: contract.budgets.maxMinutes,
    maxCost: contract.budgets.maxCost ?? null,
    maxTokens: contract.budgets.maxTokens ?? null,
  }
}

/** The budgets a call gave, without the ones it left out. */
export function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
