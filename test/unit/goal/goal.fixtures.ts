// Shared goal documents for the goal codec tests.

import type { GoalDocument } from "../../../services/goal/goal.document"

export const SOURCE = ".opencode/goal/2026-12-02-login-idle.md"

export const DOC: GoalDocument = {
  frontmatter: {
    status: "active",
    revision: 1,
    session: "ses_abc",
    max_turns: 25,
    max_minutes: 60,
    max_cost: 2.5,
    max_tokens: 100000,
    turns_used: 0,
    armed_at: "2026-12-02T10:00:00.000Z",
    created: "2026-12-02T10:00:00.000Z",
    updated: "2026-12-02T10:00:00.000Z",
  },
  contract: {
    objective: "make the login survive idle\nfor 40 s",
    success: ["zero failing tests"],
    checks: [
      { kind: "command", command: "npm test", timeoutS: 120 },
      { kind: "contains", file: "src/a.ts", text: "export const A" },
    ],
    constraints: ["no dependency bumps"],
    nonGoals: ["refactoring"],
    budgets: { maxTurns: 25, maxMinutes: 60, maxCost: 2.5, maxTokens: 100000 },
  },
  checkLog: [{ at: "2026-12-02T10:01:00.000Z", run: "r1", revision: 1, item: 1, pass: true, ms: 1200, label: "npm test", detail: "12 passed" }],
  ledger: [{ at: "2026-12-02T10:02:00.000Z", turn: 1, activity: { writes: 2, shell: 1, checks: 0, ticks: 0 } }],
  revisions: [],
}

/** DOC as renderGoalDocument writes it. */
export const TEXT = [
  "---",
  "status: active",
  "revision: 1",
  "session: ses_abc",
  "max_turns: 25",
  "max_minutes: 60",
  "max_cost: 2.5",
  "max_tokens: 100000",
  "turns_used: 0",
  "armed_at: 2026-12-02T10:00:00.000Z",
  "created: 2026-12-02T10:00:00.000Z",
  "updated: 2026-12-02T10:00:00.000Z",
  "---",
  "",
  "# Goal: make the login survive idle",
  "",
  "## Objective",
  "make the login survive idle",
  "for 40 s",
  "",
  "## Success Criteria",
  "- zero failing tests",
  "",
  "## Checks",
  "1. command `npm test` (timeout 120 s)",
  "2. contains `src/a.ts` :: `export const A`",
  "",
  "## Constraints",
  "- no dependency bumps",
  "",
  "## Non-goals",
  "- refactoring",
  "",
  "## Check Log",
  "- 2026-12-02T10:01:00.000Z run=r1 rev1 #1 PASS (1200 ms) `npm test` :: 12 passed",
  "",
  "## Turn Ledger",
  "- 2026-12-02T10:02:00.000Z turn 1: activity (writes 2, shell 1, checks 0, ticks 0)",
  "",
  "## Revisions",
  "- (none)",
  "",
].join("\n")

/** 1-based line of the first line of `text` that contains `needle`. */
export function lineOf(text: string, needle: string): number {
  const index = text.split("\n").findIndex((line) => line.includes(needle))
  if (index === -1) throw new Error(`no line contains ${JSON.stringify(needle)}`)
  return index + 1
}

/** TEXT with the first line containing `needle` replaced by `lines` (none: removed). */
export function replacingLine(needle: string, ...lines: string[]): string {
  const all = TEXT.split("\n")
  all.splice(lineOf(TEXT, needle) - 1, 1, ...lines)
  return all.join("\n")
}

/** Runs `fn`, expecting it to throw, and returns the error. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error("expected a throw")
}
