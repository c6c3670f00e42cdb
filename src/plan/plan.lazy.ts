import type { HostPlansHandle } from "../../adapters/opencode/plan/plan.handle"
import { createLineSearch } from "../../adapters/process/line.search"
import { FsPlanFiles } from "../../adapters/workspace/plan.files"
import { planMachine } from "../../machines/plan/plan.machine"
import { explainPlanRefusal } from "../../machines/plan/plan.refusals"
import type { LifecycleHost } from "../../services/lifecycle/lifecycle.host"
import type { Clock, Logger } from "../../services/lifecycle/lifecycle.ports"
import { createPlanImplementations } from "../../services/plan/plan.implementations"
import { definePlanLifecycle } from "../../services/plan/plan.lifecycle"
import { PlanNotes } from "../../services/plan/plan.notes"
import { PlanQueries } from "../../services/plan/plan.queries"
import { rebuildLivePlans } from "../../services/plan/plan.rebuild"
import { PlanRegistry } from "../../services/plan/plan.registry"
import { PlanService } from "../../services/plan/plan.service"
import type { LifecycleParts } from "../forge.module"

/** The plan harness of one workspace: the service the tools, the write-ban and /plan call, its documents, its restore. */
export function createHostPlans(options: { workspace: string; clock: Clock; log: Logger; host: LifecycleHost }): HostPlansHandle {
  const files = new FsPlanFiles(options.workspace)
  const registry = new PlanRegistry(definePlanLifecycle(options.host, { files, clock: options.clock }))
  const service = new PlanService({ registry, files, clock: options.clock, log: options.log })
  const queries = new PlanQueries(registry, files, createLineSearch())
  return {
    service,
    queries,
    files,
    registry,
    notes: new PlanNotes(),
    async restore(repository) {
      const log = options.log
      const restored = await service.sync.restore(repository)
      const rebuilt = await rebuildLivePlans({ repository, files, registry, sync: service.sync })
      for (const problem of rebuilt.problems) log.warn(`plan ${problem.planPath}: ${problem.problem}`)
      if (rebuilt.rebuilt.length > 0) log.info(`rebuilt ${rebuilt.rebuilt.length} live plan(s) from their documents`, { rebuilt: rebuilt.rebuilt })
      if (restored.restored.length > 0) log.info(`restored ${restored.restored.length} live plan(s)`, { reconciled: restored.reconciled })
      return { ...restored, rebuilt: rebuilt.rebuilt, problems: [...restored.problems, ...rebuilt.problems] }
    },
    stop: () => registry.stop(),
  }
}

/** The plan lifecycle's lazy part. */
export const planParts: LifecycleParts<"plan"> = {
  machine: planMachine,
  createImplementations: createPlanImplementations,
  explainRefusal: explainPlanRefusal,
  // A session's one live plan is the database's exclusive key, not a birth gate: a second draft rewrites the first.
  explainBirthRefusal: null,
  // A draft bans writes from the first call after a restart: the plans are back before any gate decides.
  restore: {
    when: "at-open",
    run: async (plans, repository) => {
      await plans.restore(repository)
    },
    abandon: (plans) => plans.stop(),
  },
  // Any opencode process on the workspace may step a plan: each step is decided on the latest committed record.
  driver: { kind: "shared-record" },
  create: (parts) => createHostPlans(parts),
}
