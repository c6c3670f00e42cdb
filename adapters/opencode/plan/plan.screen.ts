import { planTitleOf } from "../../../services/plan/plan.naming"
import type { PlanSummary } from "../../../services/plan/plan.queries"
import type { ScreenFields } from "../tool.screen"

// What a plan tool's call shows on its TUI line (see tool.screen.ts): which plan it acts on and, for the calls that
// open a dialog, what the user decides there — the counts for an approval, every criterion with its evidence for a
// close. Built without waiting, from what the runtime already holds: the session's live plan and its last summary.

/** The live plan a call acts on: its path, and its summary when this process has read the document. */
export interface ScreenPlan {
  planPath: string
  summary: PlanSummary | undefined
}

const DIALOG_TOOLS: ReadonlySet<string> = new Set(["plan_approve", "plan_close", "plan_discard"])

export function planCallFields(tool: string, args: unknown, plan: ScreenPlan | undefined): ScreenFields {
  const fields: ScreenFields = {}
  const summary = plan?.summary
  if (summary !== undefined) fields.plan = summary.title
  // A dialog's line also names the document: the user decides about that file.
  const decides = DIALOG_TOOLS.has(tool)
  if (plan !== undefined && (decides || summary === undefined)) fields.path = plan.planPath
  // The user confirms what the document already says (issue 23 §1b): the dialog's line says so.
  if (decides && summary?.pending) fields.document = `says ${summary.pending}`
  if (tool === "plan_approve" && summary !== undefined) Object.assign(fields, { tasks: summary.tasks, criteria: summary.criteria })
  if (tool === "plan_close") Object.assign(fields, checkFields(args))
  if (tool === "plan_write" && plan === undefined) Object.assign(fields, newPlanFields(args))
  if (tool === "plan_discard") Object.assign(fields, discardFields(args))
  return fields
}

/** `PASS 1` = "criterion — evidence", for every well-formed check of the call (its parse reports the others). */
function checkFields(args: unknown): ScreenFields {
  const checks = recordOf(args)?.checks
  if (!Array.isArray(checks)) return {}
  const fields: ScreenFields = {}
  checks.forEach((check, i) => {
    const c = recordOf(check)
    if (typeof c?.criterion !== "string" || typeof c.evidence !== "string") return
    fields[`${c.pass === true ? "PASS" : "FAIL"} ${i + 1}`] = `${c.criterion} — ${c.evidence}`
  })
  return fields
}

/** A new plan's title, as plan_write will name it (its path follows from it and shows on the approval's line). */
function newPlanFields(args: unknown): ScreenFields {
  const a = recordOf(args)
  if (typeof a?.content !== "string") return {}
  return { plan: planTitleOf(a.content, typeof a.title === "string" ? a.title : undefined), status: "new draft" }
}

function discardFields(args: unknown): ScreenFields {
  const successor = recordOf(args)?.supersede
  return { decide: typeof successor === "string" ? `supersede by ${successor}` : "discard" }
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}
