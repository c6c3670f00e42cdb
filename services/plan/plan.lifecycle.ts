import { type PlanMachine, planMachine } from "../../machines/plan.machine"
import { explainPlanRefusal } from "../../machines/plan.refusals"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { LifecycleHost } from "../lifecycle/lifecycle.host"
import { planContextProblem } from "./plan.context"
import { type PlanImplementationDeps, createPlanImplementations } from "./plan.implementations"

/** The plan lifecycle on the one host: its machine, its document writes, its refusals and how its records are read back. */
export function definePlanLifecycle(host: LifecycleHost, deps: PlanImplementationDeps): Lifecycle<PlanMachine> {
  return host.define({
    machine: planMachine,
    implementations: createPlanImplementations(deps),
    explain: explainPlanRefusal,
    metaOf: (snapshot) => ({ sessionId: snapshot.context.sessionId, document: snapshot.context.planPath }),
    contextProblem: planContextProblem,
  })
}
