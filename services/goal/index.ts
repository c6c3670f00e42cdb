// Public surface of the goal lifecycle: the service (goal_write … goal_complete), the loop that drives an armed goal
// from idle to idle, the audit of a goal written with one, its lifecycle on the one host, the effects its machine
// declares, the contract's reader and the ports a harness provides.
export { GoalService, type GoalAsker, type GoalOutcome, type GoalServiceDeps } from "./goal.service"
export { GoalLoop, type GoalLoopDeps } from "./goal.loop"
export { GOAL_AUDIT_TIMEOUT_MS, GoalAudits, type GoalAuditDeps } from "./goal.audit"
export { defineGoalLifecycle, liveGoalFact, type GoalSnapshot } from "./goal.lifecycle"
export { createGoalImplementations, type GoalImplementationDeps } from "./goal.implementations"
export { restoreGoals, takeOverDialog } from "./goal.restore"
export { GOAL_CLAIMS } from "./goal.claims"
export { NoGoalError } from "./goal.errors"
export { runGoalCommand, type GoalCommandTurn } from "./goal.command"
export { GoalContractError, limitsOf, parseGoalContract, termsOf, type GoalBudgets, type GoalCheck, type GoalContract } from "./goal.contract"
export {
  GoalSendError,
  type CheckOutcome,
  type GoalAuditSandbox,
  type GoalAuditSessions,
  type GoalAuditWorkspace,
  type GoalCheckRunner,
  type GoalFiles,
  type GoalPrompter,
  type SessionFacts,
} from "./goal.ports"
