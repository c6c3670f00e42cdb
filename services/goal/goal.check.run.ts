import type { CheckLogLine, GoalTerms } from "../../machines/goal/goal.gates"
import type { Clock } from "../lifecycle/lifecycle.ports"
import { checkLabel } from "./goal.contract.text"
import type { CheckOutcome, GoalCheckRunner } from "./goal.ports"

// One run of a goal's checks on the host: each check in order, its outcome kept for the answer and a line for the
// Check Log (one line per check, its detail bounded).

const DETAIL_MAX = 400

export interface GoalCheckRun {
  run: string
  revision: number
  entries: CheckLogLine[]
  outcomes: CheckOutcome[]
}

/** The Check Log's detail: the outcome's summary and the end of its output, on one line, bounded. */
function detailOf(outcome: CheckOutcome): string {
  const tail = outcome.outputTail.replace(/\s+/g, " ").trim()
  const detail = tail === "" ? outcome.summary : `${outcome.summary}: ${tail}`
  return detail.length > DETAIL_MAX ? `…${detail.slice(detail.length - DETAIL_MAX + 1)}` : detail
}

export async function runGoalChecks(o: {
  runner: GoalCheckRunner
  clock: Clock
  contract: GoalTerms
  revision: number
  items?: number[]
}): Promise<GoalCheckRun> {
  const wanted = o.items === undefined || o.items.length === 0 ? o.contract.checks.map((_, i) => i + 1) : [...new Set(o.items)].sort((a, b) => a - b)
  const unknown = wanted.filter((item) => item < 1 || item > o.contract.checks.length)
  if (unknown.length > 0) throw new Error(`the goal has no check ${unknown.join(", ")}: its checks are 1 to ${o.contract.checks.length}`)
  const run = `r${o.clock.now().toString(36)}`
  const entries: CheckLogLine[] = []
  const outcomes: CheckOutcome[] = []
  for (const item of wanted) {
    const check = o.contract.checks[item - 1]
    if (check === undefined) continue
    const started = o.clock.now()
    const outcome = await o.runner.run(check)
    const ended = o.clock.now()
    outcomes.push(outcome)
    entries.push({
      at: new Date(ended).toISOString(),
      run,
      revision: o.revision,
      item,
      pass: outcome.pass,
      ms: ended - started,
      label: checkLabel(check),
      detail: detailOf(outcome),
    })
  }
  return { run, revision: o.revision, entries, outcomes }
}

/** Every check of a run with its verdict; a failing one with its output tail. */
export function checkRunReport(goalPath: string, run: GoalCheckRun, what: string): string {
  const passed = run.entries.filter((e) => e.pass).length
  const lines = [`Checks of ${goalPath} (revision ${run.revision}, ${what}): ${passed} of ${run.entries.length} passed.`]
  run.entries.forEach((entry, i) => {
    const outcome = run.outcomes[i]
    lines.push(`${entry.pass ? "PASS" : "FAIL"} check ${entry.item} \`${entry.label}\` — ${outcome?.summary ?? ""} (${entry.ms} ms)`)
    if (!entry.pass && outcome !== undefined && outcome.outputTail.trim() !== "")
      lines.push(
        outcome.outputTail
          .trimEnd()
          .split("\n")
          .map((l) => `    ${l}`)
          .join("\n"),
      )
  })
  return lines.join("\n")
}
