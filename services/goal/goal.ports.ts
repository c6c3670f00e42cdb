import type { GoalCheck } from "./goal.contract"

// What the goal harness needs from the world to verify a goal: the host runs every check itself.

/** How one check ended, in words a refusal can list. */
export interface CheckOutcome {
  pass: boolean
  /** "exit code 0", "exit code 2", "timed out after 30 s (process tree killed)", "could not start: …", "file missing", … */
  summary: string
  /** The last lines of a command's output (bounded); "" for a file check. */
  outputTail: string
}

export interface GoalCheckRunner {
  run(check: GoalCheck): Promise<CheckOutcome>
}
