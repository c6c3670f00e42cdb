import { type GoalContract, GoalContractError, parseGoalContract } from "./goal.contract"
import type { GoalService } from "./goal.service"

// /goal: its template carries the goal discipline for the turn; the sub-commands (add, pause, resume, discard, stop,
// cancel) are the user's own actions, carried out here, and the turn tells the model what happened.

/** What a /goal turn says: `model` is the instruction only the model reads, `user` what the user's message shows. */
export interface GoalCommandTurn {
  model: string
  user: string
}

const SUBCOMMANDS = ["add", "pause", "resume", "confirm", "discard", "stop", "cancel"] as const

/** Carries out `/goal <arguments>`; a mistake (a contract marker, no goal to pause) is answered in the turn, never thrown. */
export async function runGoalCommand(goals: GoalService, session: string, rawArguments: string): Promise<GoalCommandTurn> {
  // `opencode run --command` re-quotes arguments that contain spaces.
  const argument = rawArguments
    .trim()
    .replace(/^"(.*)"$/s, "$1")
    .trim()
  const said = `/goal ${argument}`.trimEnd()
  try {
    return await subcommand(goals, session, argument, said)
  } catch (error) {
    const trouble =
      error instanceof GoalContractError
        ? `${error.message}. Correct the command and run it again.`
        : `/goal failed: ${error instanceof Error ? error.message : String(error)}`
    return { model: goalTroubleText(trouble), user: `${said}\n${trouble}` }
  }
}

async function subcommand(goals: GoalService, session: string, argument: string, said: string): Promise<GoalCommandTurn> {
  const word = argument.split(/\s+/, 1)[0] ?? ""
  const sub = SUBCOMMANDS.find((s) => s === word.toLowerCase())
  const result = (command: string, output: string) => ({ model: goalResultText(command, output), user: `${said}\n${output}` })
  if (argument === "") {
    const overview = await goals.overview(session)
    return { model: goalOverviewText(overview), user: `/goal\n${overview}` }
  }
  if (sub === undefined) return { model: goalDraftText(contractText(parseGoalContract(argument))), user: said }
  switch (sub) {
    case "add":
      return result("add", (await goals.write(session, parseGoalContract(argument.slice(word.length)), null)).output)
    case "pause":
      return result("pause", (await goals.pause(session, "user")).output)
    case "resume":
      return result("resume", (await goals.resume(session, { by: "user" })).output)
    case "confirm":
      return confirmTurn(goals, session, said)
    default:
      return result(sub, (await goals.discard(session, { by: "user" }, `discarded by the user with /goal ${sub}`)).output)
  }
}

/**
 * /goal confirm: the document says a status the goal holds pending the user (completed; active for a paused goal).
 * The confirmation is the tool path's own dialog, so the model is told to open it; only the user's allow moves the goal.
 */
async function confirmTurn(goals: GoalService, session: string, said: string): Promise<GoalCommandTurn> {
  const held = await goals.pendingDocumentOf(session)
  const nothing = (what: string) => ({ model: `[forge:goal confirm] ${what} Tell the user in one sentence and stop.`, user: `${said}\n${what}` })
  if (held === undefined) return nothing("There is no live goal in this session.")
  if (held.pending === null) return nothing(`The document of ${held.goalPath} says what the goal is (${held.status}): there is nothing to confirm.`)
  const completes = held.pending === "completed"
  const call = completes
    ? "Call goal_check, then goal_complete with one attestation per success criterion: the host re-runs every check, and only then the completion dialog asks the user, showing the run."
    : "Call goal_resume now: the resume dialog asks the user."
  const dialog = completes ? "the completion dialog" : "the resume dialog"
  return {
    model: `[forge:goal confirm] The user confirms that ${held.goalPath} becomes ${held.pending}, as its document says (the goal is ${held.status}). ${call} Only the user's allow there moves the goal. Then stop.`,
    user: `${said}\nThe document of ${held.goalPath} says ${held.pending}; the goal is ${held.status}. Confirm in ${dialog} that opens next.`,
  }
}

function contractText(contract: GoalContract): string {
  return JSON.stringify(
    {
      objective: contract.objective,
      success: contract.success,
      checks: contract.checks.map((c) => (c.kind === "command" ? { command: c.command, timeout: c.timeoutS } : { file: c.file, text: c.text })),
      constraints: contract.constraints,
      nonGoals: contract.nonGoals,
      ...(contract.audit === true ? { audit: true } : {}),
      ...contract.budgets,
    },
    null,
    2,
  )
}

/** The contract the user's markers gave, for the model to complete and arm with goal_write. */
function goalDraftText(contract: string): string {
  return `[forge:goal] The user sets a goal. The contract their command line gave (markers parsed by Forge):

${contract}

Goal discipline for this turn:
1. Reconnaissance only, if needed: read, grep and glob to understand what the checks will run.
2. Complete the contract: keep every check, criterion, constraint, non-goal, budget and audit the user gave verbatim. If no
   success criterion was given, derive one to three from the objective; if no check was given, propose machine-checkable
   ones ({command} that exits 0 when the goal holds, or {file, text} the file must contain).
3. Call goal_write with the contract and arm=true. The user's dialog IS the arm: nothing runs by itself before it.
4. Once armed, work toward the objective. At every idle the plugin re-prompts you with a [forge:goal-continue] brief.
   goal_check runs the checks; goal_complete re-runs EVERY check itself and needs one attestation per criterion. Its
   dialog shows the user the host's last run: call it right after a goal_check that passed.`
}

function goalResultText(command: string, outcome: string): string {
  return `[forge:goal ${command}] The user ran /goal ${command} and sees this result in their own message: ${outcome} Acknowledge in one short sentence and stop.`
}

function goalOverviewText(overview: string): string {
  return `[forge:goal] The user ran /goal and sees this overview in their own message. Do not repeat it; answer in one short sentence and stop:\n\n${overview}`
}

function goalTroubleText(trouble: string): string {
  return `[forge:goal] The user ran /goal, but Forge could not carry it out. ${trouble} Tell the user exactly this, including what to do, and stop.`
}
