import { type PlanMachine, planMachine } from "../../machines/plan/plan.machine"
import { explainPlanRefusal } from "../../machines/plan/plan.refusals"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { LifecycleHost } from "../lifecycle/lifecycle.host"
import { planContextProblem, upgradePlanRecord } from "./plan.context"
import { type PlanImplementationDeps, createPlanImplementations } from "./plan.implementations"

/** The key a session's one live plan holds in the database, whichever process wrote it. */
export function livePlanKey(sessionId: string | null, live: boolean): string | null {
  return live && sessionId !== null ? `plan:session:${sessionId}` : null
}

/** The plan lifecycle on the one host: its machine, its document writes, its refusals and how its records are read back. */
export function definePlanLifecycle(host: LifecycleHost, deps: PlanImplementationDeps): Lifecycle<PlanMachine> {
  return host.define({
    machine: planMachine,
    implementations: createPlanImplementations(deps),
    explain: explainPlanRefusal,
    metaOf: (snapshot) => ({
      sessionId: snapshot.context.sessionId,
      document: snapshot.context.planPath,
      exclusiveKey: livePlanKey(snapshot.context.sessionId, snapshot.hasTag("live")),
    }),
    contextProblem: planContextProblem,
    upgrade: upgradePlanRecord,
    // Any opencode process on the workspace may step a plan: each step is decided on the latest committed record.
    shared: true,
  })
}
