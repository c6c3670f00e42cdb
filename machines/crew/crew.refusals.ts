import type { SnapshotFrom } from "xstate"
import { FAIL_REPORTS_REQUIRED, lacksDispatchableWorker, registrationProblems, reportCoverage } from "./crew.gates"
import type { CrewEvent, crewMachine } from "./crew.machine"
import { crewStatusOf } from "./crew.status"
import { staleAnswerText } from "../dialog.gates"
import { stateToString } from "../state.text"

type CrewSnapshot = SnapshotFrom<typeof crewMachine>

// When `snapshot.can(event)` says no, these texts say which gate refused and how to get past it.
// They describe the machine's decision; they never make it.

export function explainCrewRefusal(snapshot: CrewSnapshot, event: CrewEvent): string {
  const { context } = snapshot
  const crew = context.crewPath
  const status = crewStatusOf(snapshot.value)
  const state = stateToString(snapshot.value)
  if (snapshot.status === "done") return `crew ${crew} is ${status}: a finished crew accepts no further changes. Register a new one with crew_begin.`
  // In a dialog state an answer is refused only because it answers a dialog that closed meanwhile.
  if ((event.type === "dialog.allow" || event.type === "dialog.reject") && snapshot.hasTag("awaiting-user"))
    return staleAnswerText({ subject: `crew ${crew}`, status, answered: event.dialog, open: context.dialog })
  if (snapshot.hasTag("awaiting-user") && event.type !== "crew.dispatch")
    return `crew ${crew} is waiting on the user's answer to an open dialog (${state}): ask again once it is answered.`
  switch (event.type) {
    case "crew.dispatch":
      return (
        `crew pending belt: crew ${crew} is registered but not armed, so every task dispatch of this session is refused. ` +
        `Stop and let the user choose: supervised waves now (crew_begin with execution "waves", which opens the arm dialog), ` +
        `convert it to a goal (crew_begin with execution "goal"), or standby. crew_close with abandon: true cancels it.`
      )
    case "crew.arm":
      return `crew ${crew} is ${status}: only a pending crew can be armed.`
    case "crew.convert":
      if (status !== "pending") return `crew ${crew} is ${status}: only a pending crew can be converted to a goal.`
      return `crew ${crew} runs under the session's active goal, which governs it already: execution "goal" is refused. Arm the waves (execution "waves") or abandon the crew.`
    case "crew.close": {
      if (status !== "executing")
        return `crew ${crew} is ${status}: only an armed crew closes with verdicts. Arm it first, or abandon it (crew_close with abandon: true and a reason).`
      const c = reportCoverage(context.subtasks, event.report)
      const reasons: string[] = []
      if (c.undeclared.length > 0)
        reasons.push(
          `undeclared subtasks ${quoted(c.undeclared)} (the report must follow the declared plan: fold a discovery into an existing verdict, or abandon and register a new crew)`,
        )
      if (c.missing.length > 0) reasons.push(`declared subtasks without a verdict: ${quoted(c.missing)}`)
      if (c.repeated.length > 0) reasons.push(`subtasks given more than one verdict: ${quoted(c.repeated)}`)
      if (c.withoutEvidence.length > 0) reasons.push(`verdicts without evidence: ${quoted(c.withoutEvidence)}`)
      if (c.failsWithoutReports.length > 0)
        reasons.push(
          `FAIL verdicts without both failure reports (${FAIL_REPORTS_REQUIRED}: the first attempt's and the retry's): ${quoted(c.failsWithoutReports)}`,
        )
      return `crew close gate: the report of ${crew} does not match its declared plan — ${reasons.join("; ")}.`
    }
    case "crew.abandon":
      return `crew ${crew} is ${status}: it can no longer be abandoned.`
    case "crew.restored":
      return `crew ${crew} is ${status}: only a live crew is taken over after a restart.`
    case "dialog.allow":
    case "dialog.reject":
      return `crew ${crew} is not waiting on a user dialog (it is ${state}).`
    case "crew.document.changed":
      // A live crew takes every record change (held or nothing new); only a finished one refuses, answered above.
      return `crew ${crew} is ${status}: its record (status: ${event.status}) cannot be followed now.`
  }
}

/**
 * What a crew answers while its record says more than the crew is: the status the record claims waits for the
 * user's dialog. Empty when nothing is pending.
 */
export function pendingCrewDocumentNote(snapshot: CrewSnapshot): string {
  const pending = snapshot.context.pendingDocument ?? null
  if (pending === null || snapshot.status === "done") return ""
  const status = crewStatusOf(snapshot.value)
  const dialog = pending === "closed" ? "the close dialog (crew_close with one verdict per subtask)" : "the arm dialog (crew_begin with execution)"
  return (
    `The record of crew ${snapshot.context.crewPath} says status: ${pending}, but the crew stays ${status}: a record edit does not pass a gate the user holds. ` +
    `Pending until the user confirms it with /crew confirm, which goes through ${dialog}.`
  )
}

/** Why the birth gate refused a registration (the machine's first step ended in `refused`). */
export function explainCrewBirthRefusal(snapshot: CrewSnapshot): string {
  const { objective, subtasks, registration, birth } = snapshot.context
  const problems = registrationProblems(objective, subtasks)
  if (problems.length > 0) return `crew_begin: ${problems.join("; ")}.`
  const live = birth?.liveCrew ?? null
  if (live !== null)
    return `crew_begin: this session already has a live crew: ${live.crewPath} (${live.status}). Arm it (crew_begin with execution only), close it (crew_close with verdicts), or abandon it (crew_close with abandon: true) before registering another.`
  if (lacksDispatchableWorker(birth)) return crewSetupGuidance(birth?.workers ?? { findings: [] })
  if (registration.governed)
    return `crew_begin: the session's active goal governs it already, so execution "goal" is refused. Register with execution "waves" (born armed).`
  return "crew_begin: registration and execution in one call is legal only under an active goal of this session. Register without execution, show the user the record path and the choices, and end your turn: the user picks waves, goal, or standby."
}

/** How to get forge-* workers, with forge.json's findings: the crew's roster gate, and `/crew` when none are configured. */
export function crewSetupGuidance(workers: { findings: readonly string[] }): string {
  return [
    "A crew needs forge-* workers, and none are configured. Forge reads them from two places (JSONC, comments allowed):",
    "- the project: .opencode/forge.json (the nearest one walking up from the workspace; sub-projects may hold their own);",
    "- every project of this user: ~/.config/opencode/forge.json.",
    "A template:",
    "{",
    '  "agents": {',
    '    "research": { "model": "provider/model", "thoughtLevel": "low" },',
    '    "coder": { "shape": "write" }',
    "  }",
    "}",
    "(model and thoughtLevel together pin a worker; neither inherits the session's model; shape write lets it edit and run commands.)",
    ...(workers.findings.length === 0 ? [] : ["forge.json findings:", ...workers.findings.map((f) => `- ${f}`)]),
    "Tell the user exactly this: they can write the file themselves, or ask you to — and only on their explicit go-ahead in this conversation do you write it (a sub-project's file also gets a short stable pool name). The workers exist once opencode reloads its config (a new opencode process, or a config reload).",
  ].join("\n")
}

function quoted(titles: readonly string[]): string {
  return titles.map((t) => `"${t}"`).join(", ")
}
