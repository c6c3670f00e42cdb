import type { ScreenFields } from "../tool.screen"

// What a goal tool's call shows on its TUI line (see tool.screen.ts): which goal it acts on and, for the calls that
// open a dialog, what the user decides there — the checks the host will run for an arm, every attestation for a
// completion. Built without waiting, from what this process already holds: the session's live goal.

/** The session's live goal, as this process knows it. */
export interface ScreenGoal {
  goalPath: string
  status: string
  turns: string
}

export function goalCallFields(tool: string, args: unknown, goal: ScreenGoal | undefined): ScreenFields {
  const a = recordOf(args) ?? {}
  const fields: ScreenFields = {}
  const revise = a.revise === true
  if (goal !== undefined && (tool !== "goal_write" || revise)) Object.assign(fields, { path: goal.goalPath, status: goal.status })
  switch (tool) {
    case "goal_write":
      if (!revise) fields.decide = a.arm === false ? "queue (no dialog)" : "arm: the session then works on it by itself"
      return Object.assign(fields, checkFields(a.checks))
    case "goal_complete":
      fields.decide = "complete: the host re-runs every check first"
      return Object.assign(fields, attestationFields(a.attestations))
    case "goal_resume":
      if (goal !== undefined) fields.turns = goal.turns
      fields.decide = "resume: the session works on it by itself again"
      return fields
    case "goal_discard":
      fields.decide = "discard"
      return fields
    default:
      return fields
  }
}

/** `check 1` = "command `npm test` (120 s)" or "README.md contains …", for every well-formed check of the call. */
function checkFields(checks: unknown): ScreenFields {
  if (!Array.isArray(checks)) return {}
  const fields: ScreenFields = {}
  checks.forEach((check, i) => {
    const c = recordOf(check)
    if (typeof c?.command === "string") fields[`check ${i + 1}`] = `command \`${c.command}\`${typeof c.timeout === "number" ? ` (${c.timeout} s)` : ""}`
    else if (typeof c?.file === "string" && typeof c.text === "string") fields[`check ${i + 1}`] = `${c.file} contains ${c.text}`
  })
  return fields
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
