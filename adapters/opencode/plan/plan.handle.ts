import type { LifecycleRepository } from "../../../services/lifecycle/lifecycle.ports"
import type { PlanNotes } from "../../../services/plan/plan.notes"
import type { PlanFiles } from "../../../services/plan/plan.ports"
import type { PlanQueries } from "../../../services/plan/plan.queries"
import type { PlanRegistry } from "../../../services/plan/plan.registry"
import type { PlanService } from "../../../services/plan/plan.service"
import type { RestoreReport } from "../../../services/plan/plan.sync"

/** What a plan restore found: the records restored and reconciled, plus the live plans rebuilt from documents. */
export type PlanRestoreReport = RestoreReport & { rebuilt: string[] }

/** The plan harness as the plugin's hooks see it (built in src/plan/plan.lazy.ts, loaded on first use). */
export interface HostPlansHandle {
  service: PlanService
  queries: PlanQueries
  /** The plan documents, `.opencode/plan/` of the workspace. */
  files: PlanFiles
  registry: PlanRegistry
  /** What other lifecycles say about a plan on /plan (a module acting on plans adds its source when it is built). */
  notes: PlanNotes
  /** Restores every non-terminal plan, reconciles each with its document, rebuilds live plans the records miss. */
  restore(repository: LifecycleRepository): Promise<PlanRestoreReport>
  /** Stops every plan actor: what a restore from a database that then failed loaded is dropped. */
  stop(): void
}
