import type { CriterionCheck } from "../../machines/plan/plan.gates"
import type { DialogRequest } from "../lifecycle/lifecycle.ports"
import type { PlanDocument } from "./plan.types"

// What each plan dialog asks the user: the dialog is the gate, so it names the plan and what is decided (the counts
// for an approval, every criterion with its evidence for a close). A screen that cannot show it draws the same facts
// beside the dialog (adapters/opencode/plan/plan.screen.ts).

export function approveDialog(planPath: string, doc: PlanDocument): DialogRequest {
  return {
    permission: "plan_approve",
    subject: planPath,
    summary: `Approve plan "${doc.frontmatter.title}" (${doc.tasks.length} tasks, ${doc.criteria.length} acceptance criteria)? Writes stay banned until you do.`,
  }
}

export function closeDialog(planPath: string, doc: PlanDocument, checks: readonly CriterionCheck[]): DialogRequest {
  return {
    permission: "plan_close",
    subject: planPath,
    summary: `Close plan "${doc.frontmatter.title}" as done? ${checks.map((c) => `${c.pass ? "PASS" : "FAIL"} ${c.criterion}: ${c.evidence}`).join("; ")}`,
  }
}

export function discardDialog(planPath: string, doc: PlanDocument, reason: string | undefined, successor: string | undefined): DialogRequest {
  const what = successor !== undefined ? `Supersede draft plan "${doc.frontmatter.title}" by ${successor}` : `Discard draft plan "${doc.frontmatter.title}"`
  return {
    permission: "plan_discard",
    subject: planPath,
    summary: `${what}? ${reason ? `Reason: ${reason}. ` : ""}Its write-ban ends with it, so writes open again in this session.`,
  }
}
