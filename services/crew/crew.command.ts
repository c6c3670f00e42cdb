import { crewSetupGuidance, pendingCrewDocumentNote } from "../../machines/crew/crew.refusals"
import { crewStatusOf } from "../../machines/crew/crew.status"
import { WAVE_DISCIPLINE } from "./crew.answers"
import type { CrewRosterSource } from "./crew.ports"
import type { CrewSnapshot } from "./crew.lifecycle"
import type { CrewService } from "./crew.service"

// /crew <objective>: the third state-activation command beside /plan and /goal. Its turn carries the crew discipline
// (register, pause for the user's choice, waves, verification, the close) and the roster the crew can dispatch. With
// no forge-* worker anywhere, it refuses with the one-time setup guidance instead.

/** What a /crew turn says: `model` is the instruction only the model reads, `user` what the user's message shows. */
export interface CrewCommandTurn {
  model: string
  user: string
}

export async function runCrewCommand(crews: CrewService, roster: CrewRosterSource, session: string, rawArguments: string): Promise<CrewCommandTurn> {
  // `opencode run --command` re-quotes arguments that contain spaces.
  const objective = rawArguments
    .trim()
    .replace(/^"(.*)"$/s, "$1")
    .trim()
  const said = `/crew ${objective}`.trimEnd()
  const workers = await roster.roster()
  if (workers.dispatchable === 0) {
    const guidance = crewSetupGuidance(workers)
    return { model: `[forge:crew] ${guidance}\nTell the user exactly this and stop.`, user: `${said}\n${guidance}` }
  }
  // The record is looked at first: a status it says pending the user's dialog is shown beside the crew's own.
  const live = await crews.latestLive(session)
  if (objective.toLowerCase() === "confirm") return confirmTurn(live, said)
  const findings = workers.findings.length === 0 ? [] : ["", "forge.json findings (tell the user):", ...workers.findings.map((f) => `- ${f}`)]
  if (objective === "") {
    const pending = live?.context.pendingDocument ?? null
    const held =
      pending === null ? "" : ` The record says ${pending}; confirm? /crew confirm (the crew stays ${crewStatusOf(live?.value ?? "pending")} until you do).`
    const state = live === undefined ? "This session has no live crew." : `This session's crew: ${live.context.crewPath} (${crewStatusOf(live.value)}).${held}`
    const text = [state, "", "Dispatchable workers by pool:", workers.text, ...findings].join("\n")
    return { model: `[forge:crew] ${text}\nShow the user this and stop; /crew <objective> starts a crew.`, user: `/crew\n${text}` }
  }
  const model = [
    `[forge:crew] Orchestrate this objective as a crew: ${objective}`,
    "",
    live === undefined
      ? "1. Reconnoitre first if you need to (reads and task calls are free before registration), then register the declared plan with crew_begin {objective, subtasks: [{title, agent?, files?}], lineage?} — one titled subtask per piece of work, naming the forge-* worker meant for it and the files it alone changes. Pass lineage only when the contract descends from a plan or other artifact you were given."
      : `1. This session already has a crew: ${live.context.crewPath} (${crewStatusOf(live.value)}). Carry it on, or abandon it (crew_close {abandon: true, reason}) before registering another.`,
    "2. Registration pends the crew: relay the record path and the three choices to the user and end your turn. Arm only on the user's choice.",
    `3. Once armed:\n- ${WAVE_DISCIPLINE}`,
    "",
    "Dispatchable workers by pool:",
    workers.text,
    ...findings,
  ].join("\n")
  return { model, user: said }
}

/**
 * /crew confirm: the record says a status the crew holds pending the user (closed; executing for a pending crew). The
 * confirmation is the tool path's own dialog, so the model is told to open it; only the user's allow moves the crew.
 */
function confirmTurn(live: CrewSnapshot | undefined, said: string): CrewCommandTurn {
  const nothing = (what: string) => ({ model: `[forge:crew confirm] ${what} Tell the user in one sentence and stop.`, user: `${said}\n${what}` })
  if (live === undefined) return nothing("There is no live crew in this session.")
  const pending = live.context.pendingDocument ?? null
  const status = crewStatusOf(live.value)
  const { crewPath } = live.context
  if (pending === null) return nothing(`The record of ${crewPath} says what the crew is (${status}): there is nothing to confirm.`)
  const closes = pending === "closed"
  const call = closes
    ? "Call crew_close now with one verdict per subtask (PASS or FAIL with evidence): the close dialog asks the user."
    : 'Call crew_begin with execution "waves" now: the arm dialog asks the user.'
  const dialog = closes ? "the close dialog" : "the arm dialog"
  return {
    model: `[forge:crew confirm] The user confirms that ${crewPath} becomes ${pending}, as its record says (the crew is ${status}). ${call} Only the user's allow there moves the crew. ${pendingCrewDocumentNote(live)} Then stop.`,
    user: `${said}\nThe record of ${crewPath} says ${pending}; the crew is ${status}. Confirm in ${dialog} that opens next.`,
  }
}
