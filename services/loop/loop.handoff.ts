import type { LoopHandoff, LoopRole, PostActionHandoff } from "../../machines/loop/loop.gates"

// loop_handoff declares both roles' fields; the role comes from the fields given, or the phase's when none is. The
// machine then decides whether the phase takes that role's record (a coder's record in an audit is its refusal).

export interface HandoffFields {
  changes?: { summary: string; reason: string }[]
  deviations?: { planItem: string; actual: string; reason: string }[]
  verification?: { command: string; cwd?: string; outcome: "pass" | "fail" | "not-run"; changedAfter?: boolean }[]
  findings?: { severity: "bug" | "warning"; file?: string; line?: number; description: string }[]
  summary?: { done: string[]; deviations?: string[]; followUps?: string[] }
  notes?: string
}

/** The handoff the fields make for a phase whose role is `phaseRole`; throws when they mix both roles' fields. */
export function handoffFrom(fields: HandoffFields, phaseRole: LoopRole): LoopHandoff {
  const coder = fields.changes !== undefined || fields.deviations !== undefined || fields.verification !== undefined
  const auditor = fields.findings !== undefined || fields.summary !== undefined
  if (coder && auditor)
    throw new Error("loop_handoff: give the coder's fields (changes, deviations, verification) or the auditor's (findings, summary), not both.")
  // loop_handoff makes a coder's or an auditor's record; in the post-action phase the machine refuses it for loop_complete.
  const role = coder ? "coder" : auditor ? "auditor" : phaseRole === "post_action" ? "coder" : phaseRole
  const notes = fields.notes?.trim() || null
  if (role === "coder") {
    return {
      role,
      changes: fields.changes ?? [],
      deviations: fields.deviations ?? [],
      verification: (fields.verification ?? []).map((v) => ({
        command: v.command,
        cwd: v.cwd ?? "",
        outcome: v.outcome,
        changedAfter: v.changedAfter ?? false,
      })),
      notes,
    }
  }
  return {
    role,
    findings: (fields.findings ?? []).map((f) => ({ severity: f.severity, file: f.file ?? null, line: f.line ?? null, description: f.description })),
    summary:
      fields.summary === undefined
        ? null
        : { done: fields.summary.done, deviations: fields.summary.deviations ?? [], followUps: fields.summary.followUps ?? [] },
    notes,
  }
}

/** loop_complete's arguments after their schema. */
export interface CompleteFields {
  outcome: "completed" | "completed_with_issues" | "failed"
  steps: string[]
  followUps?: string[]
  notes?: string
}

/** The post-action pass's record: how it ends the loop. */
export function completionFrom(fields: CompleteFields): PostActionHandoff {
  return { role: "post_action", outcome: fields.outcome, steps: fields.steps, followUps: fields.followUps ?? [], notes: fields.notes?.trim() || null }
}
