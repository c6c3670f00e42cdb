import { DEFAULT_LOOP_ITERATIONS, LOOP_BRANCH_PREFIX, LOOP_WORKTREES_DIR, loopSlug } from "../../../services/loop/loop.start.defaults"
import { countOf } from "../../../services/text/count.text"
import type { ScreenFields } from "../tool.screen"
import type { ScreenLoopPlan } from "./loop.handle"

// What a loop tool's call shows on its TUI line (see tool.screen.ts): which loop it acts on; for a start, its plan,
// budget and branch; and what a handoff hands off in counts (changes and checks of a coder, bugs and warnings of an auditor), so a clean audit reads apart from a
// dirty one without opening the call.

/** The loop a pass session belongs to, as this process knows it. */
export interface ScreenLoop {
  loopName: string
  /** "coding", "auditing", ... */
  phase: string
  section: string
  /** Bugs recorded (review_write) and open in the audit's scope as the call starts: they block an audit too. */
  openBugs: number
}

export function loopCallFields(tool: string, args: unknown, loop: ScreenLoop | undefined, plan?: ScreenLoopPlan): ScreenFields {
  const a = typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {}
  const fields: ScreenFields = loop === undefined ? {} : { loop: loop.loopName, phase: loop.phase, section: loop.section }
  const recorded = loop?.openBugs ?? 0
  const count = (key: string) => (Array.isArray(a[key]) ? (a[key] as unknown[]).length : undefined)
  if (tool === "loop_start") {
    const phases = typeof a.plan === "string" ? a.plan.split("\n").filter((l) => /^#+\s+phase\s+\d+/i.test(l.trim())).length : 0
    fields.from = a.plan === undefined ? sessionPlanText(plan) : `given inline${phases > 0 ? `, ${countOf(phases, "section")}` : ""}`
    fields.budget =
      typeof a.maxIterations === "number"
        ? countOf(a.maxIterations, "pass", "passes")
        : `${countOf(DEFAULT_LOOP_ITERATIONS, "pass", "passes")}, more when the sections need them`
    const wanted = typeof a.name === "string" ? a.name : typeof a.title === "string" ? a.title : undefined
    if (wanted !== undefined) {
      const slug = loopSlug(wanted)
      fields.branch = `${LOOP_BRANCH_PREFIX}${slug} in ${LOOP_WORKTREES_DIR}/${slug} (${slug}-2, -3… when taken)`
    }
    return fields
  }
  if (tool === "loop_handoff") {
    const changes = count("changes")
    const checks = count("verification")
    if (changes !== undefined || checks !== undefined) fields.handoff = `coder: ${countOf(changes ?? 0, "change")}, ${countOf(checks ?? 0, "check")}`
    // An auditor's handoff names findings, a summary, or neither (its recorded findings speak for it).
    const findings = Array.isArray(a.findings)
      ? (a.findings as { severity?: unknown }[])
      : changes === undefined && checks === undefined && loop?.phase.includes("audit") === true
        ? []
        : undefined
    if (findings !== undefined) {
      const bugs = findings.filter((f) => f?.severity === "bug").length
      const warnings = findings.filter((f) => f?.severity === "warning").length
      // Clean only when every finding reads as one (the tool refuses the others) and no recorded bug is open.
      const open = recorded === 0 ? "" : `, ${countOf(recorded, "recorded bug")} open`
      const clean = bugs === 0 && recorded === 0 && bugs + warnings === findings.length ? " (clean)" : ""
      fields.handoff = `auditor: ${countOf(bugs, "bug")}, ${countOf(warnings, "warning")}${open}${clean}`
    }
    return fields
  }
  if (tool === "loop_adjust") {
    const current = a.currentSection
    if (typeof current === "object" && current !== null && typeof (current as { title?: unknown }).title === "string")
      fields.current = `edited in place: ${(current as { title: string }).title}`
    const pending = count("sections")
    if (pending !== undefined) fields.pending = `${countOf(pending, "section")} after this one`
    else if (fields.current !== undefined) fields.pending = "kept"
  }
  return fields
}

/** The session's plan as of the call: its path, its status (only an approved one runs) and its section count. */
function sessionPlanText(plan: ScreenLoopPlan | undefined): string {
  if (plan === undefined) return "the session's approved plan (it has none: the call is refused)"
  const sections = plan.sections === null ? "its sections unread" : countOf(plan.sections, "section")
  return `${plan.planPath} (${plan.status}, ${sections})`
}
