import type { GoalContext } from "../../machines/goal/goal.machine"
import { contractLines } from "./goal.brief"
import { findingsText } from "./goal.audit.text"

// The auditor's brief: the objective, the checks the host ran and passed, the findings earlier audits left open and
// the diff since the goal was armed. The auditor works read-only and answers with findings, never with edits.

export const GOAL_AUDIT_MARKER = "[forge:goal-audit]"

/** At most this much of the diff goes in the brief; the auditor reads the rest in the workspace. */
export const AUDIT_DIFF_MAX_CHARS = 60_000

/** The diff as the brief carries it: whole, or cut at AUDIT_DIFF_MAX_CHARS with a line that says so. */
export function boundedDiff(diff: string): string {
  if (diff.length <= AUDIT_DIFF_MAX_CHARS) return diff
  return `${diff.slice(0, AUDIT_DIFF_MAX_CHARS)}\n[… the diff goes on for ${diff.length - AUDIT_DIFF_MAX_CHARS} more characters: read the changed files in the workspace]`
}

export function auditBrief({ context, diff }: { context: GoalContext; diff: string }): string {
  const { contract, audit, goalPath } = context
  const round = (audit?.rounds ?? 0) + 1
  const open = audit?.findings ?? []
  return [
    `${GOAL_AUDIT_MARKER} Audit ${round} of goal ${goalPath}. You are its auditor: the goal completes only after an audit that leaves no bug open.`,
    "",
    ...contractLines(contract, { success: "Success criteria:", checks: "Checks (the host has just run every one, and each passed):" }),
    open.length === 0
      ? "Findings open from earlier audits: none."
      : `Findings open from earlier audits (delete each one you find fixed):\n${findingsText(open)}`,
    "",
    "The work since the goal was armed:",
    diff === "" ? "(no change to the workspace since the goal was armed)" : boundedDiff(diff),
    "",
    "How to audit:",
    "1. Review the work against the objective, the criteria, the constraints and the non-goals. The checks passing is not enough: look for what they do not test.",
    "2. You change nothing: the write tools are refused, and your shell is read-only. Read, search and run commands that only look.",
    "3. Record each problem with review_write {file, line, severity, description, scenario}: a bug keeps the goal from completing; a warning does not.",
    "4. An earlier finding that is fixed: delete it with review_delete {file, line}. One that is not stays open.",
    "5. End your turn with a short summary of what you checked and what you found. Do not call the goal tools.",
  ].join("\n")
}
