import type { StateValue } from "xstate"

/** Document statuses are the plan machine's top-level states. */
export type PlanMachineStatus = "draft" | "approved" | "done" | "abandoned" | "superseded"

export function planStatusOf(value: StateValue): PlanMachineStatus {
  const top = typeof value === "string" ? value : Object.keys(value)[0]
  return top as PlanMachineStatus
}

/** The state value a document status restores to: dialogs never survive a restart. */
export function planStateForStatus(status: PlanMachineStatus): StateValue {
  if (status === "draft") return { draft: "editing" }
  if (status === "approved") return { approved: "working" }
  return status
}
