import { FsGoalFiles } from "../../adapters/workspace/goal.files"
import { defineGoalLifecycle } from "../../services/goal/goal.lifecycle"
import { GoalLoop } from "../../services/goal/goal.loop"
import { GoalService } from "../../services/goal/goal.service"
import { DriverClaims } from "../../services/lifecycle/driver.claim"
import type { LifecycleHost } from "../../services/lifecycle/lifecycle.host"
import { type OpenedWorkspace, composeWorkspace } from "../../src/runtime"
import { memoryLogger } from "../integration/plan/plan.helpers"
import { FakeAuditSessions, FakeAuditWorkspace, FakeCheckRunner, FakeClaims, FakeClock, FakePrompter, FakeSessionFacts, ManualTimers } from "./goal.fakes"
import { GoalAudits } from "../../services/goal/goal.audit"

// The opencode process of the goal SUT on the workspace: the real GoalService and GoalLoop on the workspace's one
// LifecycleHost (its SQLite database), writing real goal documents through FsGoalFiles; fakes (goal.fakes.ts) only for
// the clock, the timers, the prompts, the session facts, the driver claims and the check runs.

/** The process's real parts and the fakes at its edges, which the SUT drives and looks at. */
export interface GoalProcess {
  clock: FakeClock
  timers: ManualTimers
  prompter: FakePrompter
  facts: FakeSessionFacts
  /** The driver claims as the test states them: the claim store and the process identity both. */
  driver: FakeClaims
  claims: DriverClaims
  runner: FakeCheckRunner
  host: LifecycleHost
  rt: OpenedWorkspace
  service: GoalService
  loop: GoalLoop
  audits: GoalAudits
  auditSessions: FakeAuditSessions
}

/** A process on the workspace: composed on the folder (its database), the goal lifecycle defined on its one host. */
export async function openGoalProcess(
  dir: string,
  createdAt: number,
  options: { sandboxProblem?: string; withoutAuditor?: boolean } = {},
): Promise<GoalProcess> {
  const clock = new FakeClock(createdAt)
  const log = memoryLogger()
  const timers = new ManualTimers(clock)
  const prompter = new FakePrompter()
  const facts = new FakeSessionFacts()
  const runner = new FakeCheckRunner()
  // As src/goal/goal.lazy.ts composes the harness on the workspace's one host, with the edges swapped for the fakes.
  const workspace = composeWorkspace({ workspace: dir, clock, log })
  const files = new FsGoalFiles(dir)
  const auditSessions = new FakeAuditSessions()
  const lifecycle = defineGoalLifecycle(workspace.host, { files, clock, prompter, log, auditSessions })
  const audits = new GoalAudits({
    lifecycle,
    sessions: auditSessions,
    workspace: new FakeAuditWorkspace(),
    sandbox: { problem: async () => options.sandboxProblem ?? null },
    clock,
    log,
  })
  const driver = new FakeClaims()
  const claims = new DriverClaims({ store: async () => driver, identity: driver, clock, log })
  const service = new GoalService({
    lifecycle,
    files,
    clock,
    log,
    checks: runner,
    hasDraftPlan: (sessionId) => facts.hasDraftPlan(sessionId),
    claims,
    audits: options.withoutAuditor ? undefined : audits,
  })
  const loop = new GoalLoop({ lifecycle, clock, timers, facts, claims, log })
  const rt = await workspace.open()
  return { clock, timers, prompter, facts, driver, claims, runner, host: workspace.host, rt, service, loop, audits, auditSessions }
}
