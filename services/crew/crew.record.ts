import type { CrewSubtask, CrewVerdict } from "../../machines/crew/crew.gates"
import type { CrewContext, CrewRecordChange } from "../../machines/crew/crew.machine"
import { type CrewFrontmatter, crewFrontmatterCodec } from "./crew.frontmatter"

// The crew record (.opencode/crew/<date>-<slug>.md): the declared plan as registered, then one History entry per
// transition, appended. It is inspectable history and a compaction-recovery anchor; the crew's state lives in the
// database. Text from the model (objective, titles, evidence) is indented under its entry, so it never becomes a
// heading or a frontmatter fence of the record.

export interface CrewRecordInput {
  frontmatter: CrewFrontmatter
  objective: string
  subtasks: readonly CrewSubtask[]
  /** The dispatchable workers at registration, grouped by pool (as the registration output shows them). */
  roster: string
  /** The first History entry. */
  registered: string
}

export function renderCrewRecord(input: CrewRecordInput): string {
  const title = input.objective.split("\n", 1)[0]?.trim() || "crew"
  const lines = [
    "---",
    crewFrontmatterCodec.render(input.frontmatter).replace(/\n$/, ""),
    "---",
    "",
    `# Crew: ${title}`,
    "",
    "## Objective",
    "",
    ...block(input.objective, ""),
    "",
    "## Declared Plan",
    "",
    ...input.subtasks.map(
      (s, i) =>
        `${i + 1}. ${oneLine(s.title)}${s.agent === null ? "" : ` (agent: ${oneLine(s.agent)})`}${s.files.length === 0 ? "" : ` — owns ${s.files.map(oneLine).join(", ")}`}`,
    ),
    "",
    "## Roster at Registration",
    "",
    ...block(input.roster, ""),
    "",
    "## History",
    "",
    `- ${input.registered}`,
  ]
  return `${lines.join("\n")}\n`
}

/** The record with one more History entry at its end and its frontmatter patched. */
export function appendCrewHistory(text: string, source: string, entry: string, patch: Partial<CrewFrontmatter>): string {
  const patched = crewFrontmatterCodec.patch(text, source, patch)
  const [first = "", ...rest] = entry.split("\n")
  const body = [`- ${first}`, ...rest.map((l) => (l === "" ? "" : `  ${l}`))].join("\n")
  return `${patched.replace(/\n*$/, "\n")}${body}\n`
}

/** The History entry a step appends, from the context the step committed. */
export function historyEntry(change: Exclude<CrewRecordChange, "created">, context: CrewContext, at: string): string {
  switch (change) {
    case "armed":
      return `${at} armed: supervised waves (every task dispatch of the session is open to the crew).`
    case "converted":
      return `${at} converted to a goal: the crew ends here and the session drafts a goal from the declared subtasks.`
    case "abandoned":
      return `${at} abandoned: ${oneLine(context.reason ?? "(none given)")}`
    case "restored":
      return `${at} restored after a restart: a new opencode process took the crew over from the database; a dialog open before it was lost and must be asked again.`
    case "closed":
      return [`${at} closed with verdicts:`, ...(context.report ?? []).map(verdictLine)].join("\n")
  }
}

function verdictLine(v: CrewVerdict): string {
  const failures = v.failures.map((f, i) => `  - failure report ${i + 1}: ${oneLine(f)}`)
  return [`- ${v.verdict} "${oneLine(v.subtask)}": ${oneLine(v.evidence)}`, ...(v.verdict === "FAIL" ? failures : [])].join("\n")
}

function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, " / ")
}

/** Free text as an indented block: no line of it can start a heading, a list of the record or a fence. */
function block(text: string, empty: string): string[] {
  const lines = text.trim() === "" ? [empty] : text.trim().split(/\r?\n/)
  return lines.map((l) => (l.trim() === "" ? "" : `    ${l}`))
}
