// A loop's review findings, as its machine holds them: recorded by the auditor (review_write), open until an auditor
// deletes them (review_delete), each attributed to a section or across sections. Pure predicates behind the audit's
// clean gate: a section audit is clean only when no bug in its scope is open, the findings its handoff names included.
import type { LoopFinding } from "./loop.gates"

/** A page of a loop's audit history holds at most this many audits (review_read {attempts}). */
export const MAX_AUDITS_PAGE = 100

/** A section of the plan (0-based), or `CROSS_SECTION` for a finding that spans sections. */
export const CROSS_SECTION = -1

export interface LoopOpenFinding {
  /** The section it is attributed to, or CROSS_SECTION. */
  section: number
  /** Worktree-relative path ("" when it is about no one file) and 1-based line (0: none). */
  file: string
  line: number
  severity: "bug" | "warning"
  description: string
  /** How to see it go wrong, when the auditor gave one. */
  scenario: string | null
}

/** Where an audit stands: the section it audits, or the final audit of the whole plan. */
export interface FindingScope {
  section: number
  final: boolean
}

/** Whether a finding counts for an audit: its section or an earlier one, or across sections; every one in a final audit. */
export function isInScope(finding: Pick<LoopOpenFinding, "section">, scope: FindingScope): boolean {
  return scope.final || finding.section === CROSS_SECTION || finding.section <= scope.section
}

/** The finding's place: one finding per section, file and line. */
export function placeOf(finding: Pick<LoopOpenFinding, "section" | "file" | "line">): string {
  return `${finding.section}:${finding.file}:${finding.line}`
}

/** The findings a handoff names, attributed to the audit's section (or across sections in a final audit). */
export function handoffFindings(findings: readonly LoopFinding[], scope: FindingScope): LoopOpenFinding[] {
  const section = scope.final ? CROSS_SECTION : scope.section
  return findings.map((f) => ({ section, file: f.file ?? "", line: f.line ?? 0, severity: f.severity, description: f.description, scenario: null }))
}

/** The open findings in an audit's scope with the ones its handoff names, one per place (the recorded one first). */
export function auditFindings(open: readonly LoopOpenFinding[], named: readonly LoopFinding[], scope: FindingScope): LoopOpenFinding[] {
  const byPlace = new Map<string, LoopOpenFinding>()
  for (const f of [...open.filter((f) => isInScope(f, scope)), ...handoffFindings(named, scope)]) if (!byPlace.has(placeOf(f))) byPlace.set(placeOf(f), f)
  return [...byPlace.values()]
}

/** Bugs still open in an audit's scope: while one is, the audit is not clean. */
export function openBugs(open: readonly LoopOpenFinding[], scope: FindingScope): number {
  return open.filter((f) => f.severity === "bug" && isInScope(f, scope)).length
}

/**
 * How many consecutive dirty audits each bug's place has been found in, after an audit: a clean audit clears the
 * count; a dirty one counts the places of its bugs and drops the others.
 */
export function recurringAfter(previous: Readonly<Record<string, number>>, found: readonly LoopOpenFinding[]): Record<string, number> {
  const next: Record<string, number> = {}
  for (const f of found) if (f.severity === "bug") next[placeOf(f)] = (previous[placeOf(f)] ?? 0) + 1
  return next
}
