import type { CrewSubtask, CrewVerdict } from "../../machines/crew/crew.gates"
import type { CrewContext } from "../../machines/crew/crew.machine"
import type { CrewRoster } from "./crew.ports"

// What the crew tools answer the model. The registration answer leads with the record's path (the model relays what
// comes first and drops what is buried), then the roster and the user's three choices, and asks for the turn to end.

/** The wave discipline, carried by /crew's template and repeated when a crew is armed. */
export const WAVE_DISCIPLINE = [
  "Run the declared subtasks in waves: each wave is one message of parallel task calls; launch the next wave only after every result of the previous one is back.",
  "GUI or computer-use subtasks are mutually exclusive within a wave (the desktop is one); other subtasks run in parallel freely.",
  "Dispatch each subtask to the forge-* worker whose description fits. If no configured role fits, run it through a native task call anyway and tell the user which role is missing (suggest configuring it in forge.json).",
  "Verify each subtask against its acceptance evidence. Retry a failed subtask at most once; a FAIL verdict carries both failure reports.",
  "Finish with crew_close: one PASS/FAIL verdict with evidence per declared subtask, nothing undeclared (fold discoveries into an existing verdict). crew_close with abandon: true and a reason re-shards.",
].join("\n- ")

export function crewRegisteredText(crew: {
  crewPath: string
  objective: string
  subtasks: readonly CrewSubtask[]
  lineage: string | null
  roster: CrewRoster
  bornArmed: boolean
}): string {
  const lines = [
    `Crew record: ${crew.crewPath}`,
    ...(crew.lineage === null ? [] : [`Lineage: ${crew.lineage}`]),
    "",
    `Declared plan (${crew.subtasks.length} subtasks):`,
    ...crew.subtasks.map(
      (s, i) => `${i + 1}. ${s.title}${s.agent === null ? "" : ` → ${s.agent}`}${s.files.length === 0 ? "" : ` (owns ${s.files.join(", ")})`}`,
    ),
    "",
    "Dispatchable workers by pool:",
    crew.roster.text,
    ...(crew.roster.findings.length === 0 ? [] : ["", "forge.json findings:", ...crew.roster.findings.map((f) => `- ${f}`)]),
    "",
  ]
  if (crew.bornArmed)
    return [...lines, "EXECUTING — born armed under the session's active goal. Dispatch the first wave now.", `- ${WAVE_DISCIPLINE}`].join("\n")
  return [
    ...lines,
    "PENDING — nothing runs yet: every task dispatch of this session is refused until the user chooses.",
    `Tell the user the crew record path (${crew.crewPath}) and these three choices, then end your turn:`,
    '1. supervised waves now — then call crew_begin {execution: "waves"} (the user confirms in a dialog);',
    '2. convert to a goal contract — then call crew_begin {execution: "goal"} and draft goal_write from the subtasks;',
    "3. standby — nothing to call; the crew waits until armed or abandoned (crew_close {abandon: true, reason}).",
  ].join("\n")
}

export function crewArmedText(crew: Pick<CrewContext, "crewPath">): string {
  return [`Crew armed: ${crew.crewPath} runs in supervised waves; task dispatches are open.`, `- ${WAVE_DISCIPLINE}`].join("\n")
}

export function crewConvertedText(crew: Pick<CrewContext, "crewPath" | "objective" | "subtasks">): string {
  return [
    `Crew converted: ${crew.crewPath} ends here as a conversion record.`,
    "Now draft the goal with goal_write (arm=true): the objective below, each declared subtask folded into a success criterion and, where it can be checked by a command or a file's text, a check. The arm dialog is the user's gate.",
    `Objective: ${crew.objective}`,
    ...crew.subtasks.map((s, i) => `${i + 1}. ${s.title}`),
  ].join("\n")
}

export function crewClosedText(crewPath: string, report: readonly CrewVerdict[]): string {
  const passed = report.filter((v) => v.verdict === "PASS").length
  return [
    `Crew closed: ${crewPath} — ${passed} PASS, ${report.length - passed} FAIL.`,
    ...report.map((v) => `- ${v.verdict} ${v.subtask}: ${v.evidence}`),
  ].join("\n")
}
