import { createLoopSessions } from "../../adapters/opencode/loop/loop.sessions"
import { tmpdir } from "node:os"
import path from "node:path"
import type { PluginInput } from "@opencode-ai/plugin"
import { createGoalPrompter, createSessionFacts } from "../../adapters/opencode/goal/goal.session.facts"
import { createGoalCheckRunner } from "../../adapters/workspace/goal.checks"
import { FsGoalFiles } from "../../adapters/workspace/goal.files"
import { defineGoalLifecycle } from "../../services/goal/goal.lifecycle"
import { GoalLoop } from "../../services/goal/goal.loop"
import { restoreGoals } from "../../services/goal/goal.restore"
import { runGoalCommand } from "../../services/goal/goal.command"
import { compactionBrief } from "../../services/goal/goal.brief"
import type { HostGoalsHandle } from "../../adapters/opencode/goal/goal.handle"
import { GoalService } from "../../services/goal/goal.service"
import type { LifecycleHost } from "../../services/lifecycle/lifecycle.host"
import type { Clock, LifecycleRepository, Logger } from "../../services/lifecycle/lifecycle.ports"
import type { PlanService } from "../../services/plan/plan.service"
import { systemTimers } from "../system"
import type { DriverClaims } from "../../services/lifecycle/driver.claim"
import { goalMachine } from "../../machines/goal/goal.machine"
import { explainGoalBirthRefusal, explainGoalRefusal } from "../../machines/goal/goal.refusals"
import { createGoalImplementations } from "../../services/goal/goal.implementations"
import { GOAL_CLAIMS } from "../../services/goal/goal.claims"
import type { LifecycleParts } from "../forge.module"
import { OpencodeAuditSessions } from "../../adapters/opencode/goal/goal.audit.sessions"
import { GitAuditWorkspace } from "../../adapters/workspace/goal.audit.git"
import { BwrapSandboxes } from "../../adapters/sandbox/loop.sandboxes"
import { GoalAudits } from "../../services/goal/goal.audit"

export function createHostGoals(options: {
  client: PluginInput["client"]
  log: Logger
  clock: Clock
  workspace: string
  host: LifecycleHost
  plans: PlanService
  /** The workspace database's lifecycle records, for the restore. */
  repository: () => Promise<LifecycleRepository | undefined>
  /** Where command checks write their output while they run; the OS temp folder by default. */
  logDir?: string
  /** The debounce new goals' loops run with (ms): the production default, or a test's (test.timings.ts). */
  debounceMs: number
  /** The workspace's one driver claim. */
  claims: DriverClaims
  /** The sandbox a goal auditor's shells run in, as the loop sandbox options set it up. */
  sandboxes: BwrapSandboxes
}): HostGoalsHandle {
  const files = new FsGoalFiles(options.workspace)
  const hasDraftPlan = (sessionId: string) => options.plans.hasDraft(sessionId)
  const auditSessions = new OpencodeAuditSessions(options.client)
  const { sandboxes } = options
  const lifecycle = defineGoalLifecycle(options.host, {
    files,
    clock: options.clock,
    prompter: createGoalPrompter(options.client),
    log: options.log,
    auditSessions,
  })
  const audits = new GoalAudits({
    lifecycle,
    sessions: auditSessions,
    workspace: new GitAuditWorkspace(options.workspace),
    // Fail-closed as a loop: an auditor runs unconfined only where the user turned the sandbox off.
    sandbox: { problem: async () => (sandboxes.mode === "off" ? null : sandboxes.problem()) },
    clock: options.clock,
    log: options.log,
  })
  const service = new GoalService({
    lifecycle,
    files,
    clock: options.clock,
    log: options.log,
    checks: createGoalCheckRunner({ workspace: options.workspace, logDir: options.logDir ?? path.join(tmpdir(), "forge-goal-checks") }),
    hasDraftPlan,
    debounceMs: options.debounceMs,
    claims: options.claims,
    audits,
  })
  const loop = new GoalLoop({
    lifecycle,
    clock: options.clock,
    timers: systemTimers,
    facts: createSessionFacts(options.client, hasDraftPlan),
    claims: options.claims,
    log: options.log,
    tell: (sessionId, text) => createLoopSessions(options.client).tell(sessionId, text),
    follow: (goal) => service.followDocument(goal),
  })
  service.stalledWhy = (goalPath) => loop.stalledWhy(goalPath)
  return {
    service,
    loop,
    audits,
    auditSessions,
    auditSandboxOf: (sessionId) =>
      sandboxes.mode === "off" || !audits.isAuditor(sessionId)
        ? null
        : sandboxes.sandboxFor({ worktree: options.workspace, writable: false, network: sandboxes.network }),
    command: (sessionId, rawArguments) => runGoalCommand(service, sessionId, rawArguments),
    compactionContext: async (sessionId) => {
      const goal = service.liveFor(sessionId)
      return goal === undefined ? undefined : compactionBrief(goal.context, (await files.read(goal.context.goalPath)) ?? "")
    },
    async restore() {
      const repository = await options.repository()
      if (repository === undefined) return { restored: [], problems: [] }
      const report = await restoreGoals(lifecycle, repository, options.claims)
      await loop.resumeAll()
      return report
    },
    dispose: () => loop.dispose(),
  }
}

/** The goal lifecycle's lazy part. */
export const goalParts: LifecycleParts<"goal"> = {
  machine: goalMachine,
  createImplementations: createGoalImplementations,
  explainRefusal: explainGoalRefusal,
  // One live goal per session: arming beside a live one is refused by the machine, on the facts read at the birth.
  explainBirthRefusal: explainGoalBirthRefusal,
  restore: { when: "after-open" },
  // One process drives a goal's loop; when it ends, another takes the goal up at its next look.
  driver: { kind: "claim", claimKind: GOAL_CLAIMS, takeOverLeft: (goals) => goals.loop.resumeAll() },
  create: (parts) =>
    createHostGoals({
      client: parts.client,
      log: parts.log,
      clock: parts.clock,
      workspace: parts.workspace,
      host: parts.host,
      plans: parts.handle("plan").service,
      repository: parts.repository,
      debounceMs: parts.timings.goalDebounceMs,
      claims: parts.claims,
      sandboxes: new BwrapSandboxes({ mode: parts.options.loop.sandbox, network: parts.options.loop.network, workspace: parts.workspace }),
    }),
  close: (goals) => goals.dispose(),
}
