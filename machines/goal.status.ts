import type { StateValue } from "xstate"

/** Document statuses are the goal machine's top-level states. */
export type GoalMachineStatus = "queued" | "active" | "paused" | "completed" | "abandoned"

export function goalStatusOf(value: StateValue): GoalMachineStatus {
  return (typeof value === "string" ? value : Object.keys(value)[0]) as GoalMachineStatus
}

/** The state value a document status restores to: dialogs never survive a restart, and the loop waits for an idle. */
export function goalStateForStatus(status: GoalMachineStatus): StateValue {
  if (status === "queued") return { queued: "waiting" }
  if (status === "active") return { active: "working" }
  if (status === "paused") return { paused: "stopped" }
  return status
}
