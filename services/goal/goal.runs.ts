import type { CheckLogLine, CheckRun } from "../../machines/goal/goal.gates"
import type { GoalCheckRun } from "./goal.check.run"

// The runs of a goal's checks that the user decides a completion on. In opencode's TUI the completion dialog says
// only "Call tool goal_complete", and the call's line is drawn before the call does anything: it can show a run that
// happened before it, never the one it makes. So this keeps the latest run of each goal this process made, and the
// run each session's latest completion line showed. The completion gate refuses a call whose line showed no passing run
// of every check of the current contract (the machine's isShownRunPassed), with the call's own run; the next call's
// line shows that run, and the host runs every check once more before that dialog opens.

/** What a session's completion line showed: the run (null when it had none), and the call to repeat. */
export interface ShownRun {
  run: GoalCheckRun | null
  tool: string
}

export class GoalRuns {
  private readonly latest = new Map<string, GoalCheckRun>()
  private readonly shown = new Map<string, ShownRun>()

  record(goalPath: string, run: GoalCheckRun): void {
    this.latest.set(goalPath, run)
  }

  latestOf(goalPath: string): GoalCheckRun | undefined {
    return this.latest.get(goalPath)
  }

  /** Notes what the session's completion call showed on its line: its execute takes it. */
  show(sessionId: string, shown: ShownRun): void {
    this.shown.set(sessionId, shown)
  }

  /** What the session's completion call showed; undefined when no line was drawn for it (a harness without a TUI line). */
  take(sessionId: string): ShownRun | undefined {
    const shown = this.shown.get(sessionId)
    this.shown.delete(sessionId)
    return shown
  }
}

/** A run's results as the completion gate reads them. */
export function resultsOf(run: GoalCheckRun): { revision: number; results: CheckRun[] } {
  return { revision: run.revision, results: run.entries.map((entry) => ({ item: entry.item, pass: entry.pass })) }
}

/** What a completion call's line showed, as the completion gate reads it (the machine decides whether it passed). */
export function shownOf(shown: ShownRun): { tool: string; run: { revision: number; results: CheckRun[] } | null } {
  return { tool: shown.tool, run: shown.run === null ? null : resultsOf(shown.run) }
}

/** One check of a run as the user reads it: "`npm test`: exit code 0, 12.3 s, PASS" (a failure with its output's end). */
export function runEntryText(entry: CheckLogLine): string {
  return `\`${entry.label}\`: ${entry.detail}, ${(entry.ms / 1000).toFixed(1)} s, ${entry.pass ? "PASS" : "FAIL"}`
}

/** The completion dialog's words for a harness that shows them (opencode's TUI shows the line instead). */
export function completionSummary(objective: string, run: GoalCheckRun, attested: string): string {
  const first = objective.split("\n", 1)[0]
  return `Complete goal "${first}"? The host ran all ${run.entries.length} checks (run ${run.run}): ${run.entries.map(runEntryText).join("; ")}. ${attested}`
}
