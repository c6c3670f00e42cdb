import type { ScreenFields } from "../tool.screen"

// What a crew tool's call shows on its TUI line (see tool.screen.ts): which crew it acts on and, for the calls that may
// open a dialog, what the user decides there — the subtasks armed, every verdict of a close, an abandon's reason.

/** The session's live crew, as this process knows it. */
export interface ScreenCrew {
  crewPath: string
  status: string
  /** The objective's first line. */
  objective: string
  subtasks: number
}

export function crewCallFields(tool: string, args: unknown, crew: ScreenCrew | undefined): ScreenFields {
  const a = typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {}
  const fields: ScreenFields = {}
  const registers = tool === "crew_begin" && (a.objective !== undefined || a.subtasks !== undefined)
  if (crew !== undefined && !registers)
    Object.assign(fields, { crew: crew.objective, path: crew.crewPath, status: crew.status, declared: `${crew.subtasks} subtasks` })
  if (tool === "crew_begin") {
    if (Array.isArray(a.subtasks)) fields.declared = `${a.subtasks.length} subtasks`
    if (a.execution === "waves") fields.decide = a.subtasks === undefined ? "arm: run the crew's subtasks in supervised waves" : "register, born armed"
    else if (a.execution === "goal") fields.decide = "convert the crew to a goal"
    else fields.decide = "register: the crew pends until you choose"
    return fields
  }
  if (a.abandon === true) {
    fields.decide = "abandon (no verdicts)"
    if (typeof a.reason === "string") fields.reason = a.reason
    return fields
  }
  fields.decide = "close with verdicts"
  if (Array.isArray(a.report))
    a.report.forEach((line: unknown, i) => {
      if (typeof line !== "object" || line === null) return
      const v = line as Record<string, unknown>
      fields[`verdict ${i + 1}`] = `${String(v.verdict)} ${String(v.subtask)} — ${String(v.evidence)}`
    })
  return fields
}
