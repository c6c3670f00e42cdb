import type { ScreenFields } from "../tool.screen"

// What a loop tool's call shows on its TUI line (see tool.screen.ts): which loop it acts on, and what a handoff hands
// off in counts (changes and checks of a coder, bugs and warnings of an auditor), so a clean audit reads apart from a
// dirty one without opening the call.

/** The loop a pass session belongs to, as this process knows it. */
export interface ScreenLoop {
  loopName: string
  /** "coding", "auditing", ... */
  phase: string
  section: string
}

export function loopCallFields(tool: string, args: unknown, loop: ScreenLoop | undefined): ScreenFields {
  const a = typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {}
  const fields: ScreenFields = loop === undefined ? {} : { loop: loop.loopName, phase: loop.phase, section: loop.section }
  const count = (key: string) => (Array.isArray(a[key]) ? (a[key] as unknown[]).length : undefined)
  if (tool === "loop_start") {
    const lines = typeof a.plan === "string" ? a.plan.split("\n").filter((l) => /^#+\s+phase\s+\d+/i.test(l.trim())).length : undefined
    fields.from = a.plan === undefined ? "the session's approved plan" : `given inline${lines ? `, ${lines} phases` : ""}`
    return fields
  }
  if (tool === "loop_handoff") {
    const changes = count("changes")
    const checks = count("verification")
    if (changes !== undefined || checks !== undefined) fields.handoff = `coder: ${changes ?? 0} changes, ${checks ?? 0} checks`
    const findings = Array.isArray(a.findings) ? (a.findings as { severity?: unknown }[]) : undefined
    if (findings !== undefined) {
      const bugs = findings.filter((f) => f?.severity === "bug").length
      const warnings = findings.filter((f) => f?.severity === "warning").length
      // Clean only when every finding reads as one (the tool refuses the others).
      fields.handoff = `auditor: ${bugs} bugs, ${warnings} warnings${bugs === 0 && bugs + warnings === findings.length ? " (clean)" : ""}`
    }
    return fields
  }
  if (tool === "loop_adjust") fields.pending = `${count("sections") ?? 0} sections after this one`
  return fields
}
