// Public surface of the loop lifecycle: the service (loop_start … loop_complete, the passes' idles and errors), its
// review findings, its lifecycle on the one host, the effects its machine declares, and the ports a harness provides.
export { DEFAULT_LOOP_STALL_MS, LOOP_CLAIMS, LoopService, type LoopServiceDeps } from "./loop.service"
export { LoopReviewService } from "./loop.review"
export { defineLoopLifecycle, type LoopSnapshot } from "./loop.lifecycle"
export { createLoopImplementations, type LoopImplementationDeps } from "./loop.implementations"
export type { LoopStartRequest } from "./loop.start.input"
export type {
  LoopAuditEntry,
  LoopBranchFacts,
  LoopPlan,
  LoopPlans,
  LoopReviews,
  LoopSandboxes,
  LoopSessions,
  LoopUsage,
  LoopWorktrees,
  StoredAudit,
  StoredFinding,
} from "./loop.ports"
