import type { PlanStatus } from "./plan.types"

// Kept apart from plan.queries.ts: /plan's command hook loads at opencode's start, and the queries pull in the
// document parser (yaml), which the start must not load.

/** A plan's status as listings show it: the document's held status beside it, with the way to confirm it. */
export function statusLabel(plan: { status: PlanStatus; pending: PlanStatus | null }): string {
  return plan.pending === null ? plan.status : `${plan.status}; the document says ${plan.pending}: confirm? /plan confirm`
}
