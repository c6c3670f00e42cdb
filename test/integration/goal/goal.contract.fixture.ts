import type { GoalContract } from "../../../services/goal/goal.contract"

/** A goal with one command check and small budgets: what the goal tests arm when the contract itself is not under test. */
export const ONE_CHECK_CONTRACT: GoalContract = {
  objective: "make the suite green",
  success: ["zero failing tests"],
  checks: [{ kind: "command", command: "npm test", timeoutS: 120 }],
  constraints: [],
  nonGoals: [],
  budgets: { maxTurns: 5, maxMinutes: 30 },
}
