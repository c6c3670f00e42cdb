import type { CriterionCheck } from "../../machines/plan.gates"
import type { DialogRequest } from "../lifecycle/lifecycle.ports"
import type { PlanDocument } from "./plan.types"

// What each plan dialog asks the user, and the facts a screen shows beside it: the dialog is the gate, so the user must
// see which plan it is and what they decide (the counts for an approval, every criterion with its evidence for a close).

function planFacts(planPath: string, doc: PlanDocument): [string, string | number][] {
  return [
    ["plan", doc.frontmatter.title],
    ["path", planPath],
  ]
}

export function approveDialog(planPath: string, doc: PlanDocument): DialogRequest {
  return {
    permission: "plan_approve",
    subject: planPath,
    summary: `Approve plan "${doc.frontmatter.title}" (${doc.tasks.length} tasks, ${doc.criteria.length} acceptance criteria)? Writes stay banned until you do.`,
    facts: [...planFacts(planPath, doc), ["tasks", doc.tasks.length], ["criteria", doc.criteria.length]],
  }
}

export function closeDialog(planPath: string, doc: PlanDocument, checks: readonly CriterionCheck[]): DialogRequest {
  const mark = (c: CriterionCheck) => (c.pass ? "PASS" : "FAIL")
  return {
    permission: "plan_close",
    subject: planPath,
    summary: `Close plan "${doc.frontmatter.title}" as done? ${checks.map((c) => `${mark(c)} ${c.criterion}: ${c.evidence}`).join("; ")}`,
    facts: [
      ...planFacts(planPath, doc),
      ["tasks", `${doc.tasks.filter((t) => t.ticked).length}/${doc.tasks.length} ticked`],
      ...checks.map((c, i): [string, string] => [`${mark(c)} ${i + 1}`, `${c.criterion} — ${c.evidence}`]),
    ],
  }
}

export function discardDialog(planPath: string, doc: PlanDocument, reason: string | undefined, successor: string | undefined): DialogRequest {
  const what = successor !== undefined ? `Supersede draft plan "${doc.frontmatter.title}" by ${successor}` : `Discard draft plan "${doc.frontmatter.title}"`
  return {
    permission: "plan_discard",
    subject: planPath,
    summary: `${what}? ${reason ? `Reason: ${reason}. ` : ""}Its write-ban ends with it, so writes open again in this session.`,
    facts: [
      ...planFacts(planPath, doc),
      ["decide", successor !== undefined ? `supersede by ${successor}` : "discard the draft"],
      ...(reason ? [["reason", reason] as [string, string]] : []),
    ],
  }
}
