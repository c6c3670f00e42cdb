import type { GoalAudit, GoalAuditFinding } from "../../machines/goal/goal.audit"

// What a goal's audit says to people and to the model: the document's `audit:` line, the findings a refusal lists.

/** The goal document's `audit:` line: required, and how the last audit ended (written as each audit ends). */
export function auditLine(audit: GoalAudit): string {
  if (audit.last === null) return "required (no audit run yet)"
  return `required; audit ${audit.rounds} ${audit.last.outcome}`
}

/** One finding, as a refusal and the auditor's brief list it. */
export function findingText(f: Pick<GoalAuditFinding, "severity" | "file" | "line" | "description" | "scenario">): string {
  return `${f.severity} ${f.file}:${f.line} — ${f.description}${f.scenario === null ? "" : ` (scenario: ${f.scenario})`}`
}

/** The open findings, one per line, bugs first. */
export function findingsText(findings: readonly GoalAuditFinding[]): string {
  const sorted = [...findings].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === "bug" ? -1 : 1))
  return sorted.map((f) => `- ${findingText(f)}`).join("\n")
}
