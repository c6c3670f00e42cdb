import { FsGoalFiles } from "../../../adapters/workspace/goal.files"
import type { GoalContract } from "../../../services/goal/goal.contract"
import { defineGoalLifecycle } from "../../../services/goal/goal.lifecycle"
import type { GoalCheckRunner } from "../../../services/goal/goal.ports"
import { GoalService } from "../../../services/goal/goal.service"
import { memoryLogger, type useRuntime } from "../plan/plan.helpers"

/** A goal with one command check and small budgets: what the goal tests arm when the contract itself is not under test. */
export const ONE_CHECK_CONTRACT: GoalContract = {
  objective: "make the suite green",
  success: ["zero failing tests"],
  checks: [{ kind: "command", command: "npm test", timeoutS: 120 }],
  constraints: [],
  nonGoals: [],
  budgets: { maxTurns: 5, maxMinutes: 30 },
}

/** A goal with a command check and a file check, and one criterion. */
export const TWO_CHECK_CONTRACT: GoalContract = {
  objective: "make the suite green",
  success: ["zero failing tests"],
  checks: [
    { kind: "command", command: "npm test", timeoutS: 120 },
    { kind: "contains", file: "CHANGELOG.md", text: "## Unreleased" },
  ],
  constraints: [],
  nonGoals: [],
  budgets: { maxTurns: 5, maxMinutes: 30 },
}

/** The goal service on the test's runtime (real SQLite, real documents), with no draft plan and the checks given. */
export function goalServiceOn(ctx: ReturnType<typeof useRuntime>, checks: GoalCheckRunner, debounceMs?: number) {
  const log = memoryLogger()
  const files = new FsGoalFiles(ctx.ws.dir)
  const lifecycle = defineGoalLifecycle(ctx.rt.host, { files, clock: ctx.ws.clock, log, prompter: { send: async () => {} } })
  const service = new GoalService({ lifecycle, files, clock: ctx.ws.clock, log, hasDraftPlan: async () => false, checks, debounceMs })
  return { lifecycle, service, log }
}
