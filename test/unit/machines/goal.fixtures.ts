import type { GoalLimits, GoalTerms } from "../../../machines/goal/goal.gates"
import type { GoalEvent, GoalInput } from "../../../machines/goal/goal.machine"

// What the goal machine's unit tests share: a goal with two criteria and two checks, armed at T0, and its events.

export const T0 = 1_700_000_000_000
export const MINUTE = 60_000
export const limits: GoalLimits = { maxTurns: 10, maxMinutes: 60, maxCost: null, maxTokens: null }

/** The contract of a goal with these criteria and this many checks. */
export const terms = (criteria: string[], checkCount: number): GoalTerms => ({
  objective: "login",
  success: criteria,
  checks: Array.from({ length: checkCount }, (_, i) => ({ kind: "command" as const, command: `check ${i + 1}`, timeoutS: 120 })),
  constraints: [],
  nonGoals: [],
})

export const input: GoalInput = {
  goalPath: ".opencode/goal/2026-11-30-login.md",
  sessionId: "s1",
  contract: terms(["Login works", "Suite is green"], 2),
  limits,
  createdAt: T0 - MINUTE,
  document: "# Goal: login",
  // Written queued, the session holding no live goal: the birth gate lets it through.
  birth: { armAsked: false, liveGoal: null },
}

export type Overrides = Partial<Omit<GoalInput, "contract">> & { criteria?: string[]; checkCount?: number }

/** The input with the overrides given, criteria and check count folded into its contract. */
export function inputWith({ criteria, checkCount, ...rest }: Overrides = {}): GoalInput {
  return { ...input, ...rest, contract: terms(criteria ?? input.contract.success, checkCount ?? input.contract.checks.length) }
}

export const arm: Extract<GoalEvent, { type: "goal.arm" }> = { type: "goal.arm", sessionId: "s2", draftPlan: false }
/** The user's answers to the dialog numbered `dialog` (the goal's first dialog is 1, each one opened after it one more). */
export const allow = (dialog: number, now = T0): GoalEvent => ({ type: "dialog.allow", dialog, now })
export const reject = (dialog: number): GoalEvent => ({ type: "dialog.reject", dialog })
