import { REVIEW_TOOL_IDS, STATE_TOOL_IDS } from "../agent.partition"
import { isFileChangingTool } from "../tool.kinds"

// A goal's audit (`/goal … --audit`): the second key of its completion gate. Once the host's run of every check
// passed, an auditor session Forge opens itself reviews the work since the goal was armed, read-only, and records what
// it finds with the review tools. The goal completes only after an audit that leaves no bug open. Plain predicates, so
// they read (and port) without XState.

export type GoalAuditSeverity = "bug" | "warning"

/** A finding an auditor recorded against the goal's work: at a file and line, one per place. */
export interface GoalAuditFinding {
  file: string
  line: number
  severity: GoalAuditSeverity
  description: string
  scenario: string | null
  /** The auditor session that recorded it. */
  session: string
}

/** How an audit ended: clean (no bug open), dirty (a bug open), or failed (it could not run or finish). */
export type GoalAuditOutcome = "clean" | "dirty" | "failed"

export interface GoalAudit {
  /** The workspace as it stood when the goal was first armed (a git tree): the auditor's diff starts there. Null: none. */
  base: string | null
  /** The auditor session of the audit running now; null between audits. */
  session: string | null
  /** Every auditor session the goal opened: a shell of any of them stays read-only, and a tool call is asked of the goal. */
  sessions: string[]
  /** Findings still open: an audit deletes what it finds fixed, and the next one starts from what is left. */
  findings: GoalAuditFinding[]
  /** Audits run so far. */
  rounds: number
  /** How the last audit ended, with the auditor's summary or the failure. */
  last: { outcome: GoalAuditOutcome; summary: string; at: number } | null
}

/** The audit a goal born with `--audit` starts with. */
export function newGoalAudit(): GoalAudit {
  return { base: null, session: null, sessions: [], findings: [], rounds: 0, last: null }
}

/** A finding's place: one finding per file and line. */
export function findingPlace(f: { file: string; line: number }): string {
  return `${f.file}:${f.line}`
}

/** The bugs still open: each one keeps the goal from completing. */
export function openAuditBugs(audit: GoalAudit): GoalAuditFinding[] {
  return audit.findings.filter((f) => f.severity === "bug")
}

/** The harness tools an auditor may call: its findings, and reading a plan or a section. */
const AUDITOR_STATE_TOOLS: ReadonlySet<string> = new Set([...REVIEW_TOOL_IDS, "plan_read", "section_read"])

/**
 * Tools an auditor session never uses: every other harness state tool (it changes no plan, goal, crew or loop, and
 * completes nothing), `question` (it runs unattended) and `task` (what a subagent did would land outside the audit's
 * gate).
 */
const AUDITOR_DENIED_TOOLS: ReadonlySet<string> = new Set([...STATE_TOOL_IDS.filter((tool) => !AUDITOR_STATE_TOOLS.has(tool)), "question", "task"])

/** Whether a goal's auditor may call `tool`: it reads, searches and runs checks, and changes nothing. */
export function isAuditorTool(tool: string): boolean {
  return !AUDITOR_DENIED_TOOLS.has(tool) && !isFileChangingTool(tool)
}

/** At most this much of an auditor's last words is kept as its summary. */
export const AUDIT_SUMMARY_MAX = 2_000
