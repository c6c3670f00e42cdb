import { countOf } from "../../../services/text/count.text"
import type { ScreenFields } from "../tool.screen"

// What a crew tool's call shows on its TUI line (see tool.screen.ts): which crew it acts on (as it stood at the call:
// the line stays) and, for the calls that may open a dialog, what the user decides there — every subtask armed with
// its worker and the rule the close is held to, every verdict of a close, an abandon's reason.

/** One declared subtask, as the crew holds it. */
export interface ScreenSubtask {
  title: string
  /** The forge-* worker it names, or null for whichever worker the orchestrator picks. */
  agent: string | null
  /** The files it alone changes. */
  files: readonly string[]
}

/** The session's live crew, as this process knows it. */
export interface ScreenCrew {
  crewPath: string
  status: string
  /** The objective's first line. */
  objective: string
  subtasks: readonly ScreenSubtask[]
}

/** What crew_close must bring for the crew to close (the close gate's cross-check, docs/crews.md). */
const CLOSE_RULE = "closes when you allow crew_close with one PASS/FAIL verdict and its evidence per subtask (a FAIL only after its one retry)"

export function crewCallFields(tool: string, args: unknown, crew: ScreenCrew | undefined): ScreenFields {
  const a = typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {}
  const fields: ScreenFields = {}
  const registers = tool === "crew_begin" && (a.objective !== undefined || a.subtasks !== undefined)
  if (crew !== undefined && !registers)
    Object.assign(fields, { crew: crew.objective, path: crew.crewPath, "at call": crew.status, declared: countOf(crew.subtasks.length, "subtask") })
  if (tool === "crew_begin") {
    const declared = registers ? declaredOf(a.subtasks) : (crew?.subtasks ?? [])
    if (registers) fields.declared = countOf(declared.length, "subtask")
    if (a.execution === "waves") fields.decide = registers ? "register, born armed" : "arm: run the crew's subtasks in supervised waves"
    else if (a.execution === "goal") fields.decide = "convert the crew to a goal"
    else fields.decide = "register: the crew pends until you choose"
    declared.forEach((subtask, i) => {
      const owns = subtask.files.length === 0 ? "" : `, owns ${subtask.files.join(", ")}`
      fields[`subtask ${i + 1}`] = `${subtask.title} (${subtask.agent ?? "any forge-* worker"})${owns}`
    })
    if (a.execution === "waves") fields.closes = CLOSE_RULE
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

/** The well-formed subtasks of a registration's arguments (its parse reports the others). */
function declaredOf(subtasks: unknown): ScreenSubtask[] {
  if (!Array.isArray(subtasks)) return []
  return subtasks.flatMap((item: unknown) => {
    if (item === null || typeof item !== "object") return []
    const { title, agent, files } = item as { title?: unknown; agent?: unknown; files?: unknown }
    const owned = Array.isArray(files) ? files.filter((file): file is string => typeof file === "string") : []
    return typeof title === "string" ? [{ title, agent: typeof agent === "string" ? agent : null, files: owned }] : []
  })
}
