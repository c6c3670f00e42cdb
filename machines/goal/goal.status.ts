import type { StateValue } from "xstate"

/** Document statuses are the goal machine's top-level states (its birth gate, `writing`, is passed within one step). */
export type GoalMachineStatus = "queued" | "active" | "paused" | "completed" | "abandoned"

/** The statuses of a live goal (the `live` tag): the session's one goal, working or waiting to be resumed. */
export type LiveGoalStatus = Extract<GoalMachineStatus, "active" | "paused">

export function goalStatusOf(value: StateValue): GoalMachineStatus {
  const top = typeof value === "string" ? value : Object.keys(value)[0]
  if (top === "writing") return "queued"
  // A birth the gate refused is never created, so nothing shows it; should anything ask, it is a goal that never went on.
  if (top === "refused") return "abandoned"
  return top as GoalMachineStatus
}

export function isLiveGoalStatus(status: GoalMachineStatus): status is LiveGoalStatus {
  return status === "active" || status === "paused"
}

/** The state value a document status restores to: dialogs never survive a restart, and the loop waits for an idle. */
export function goalStateForStatus(status: GoalMachineStatus): StateValue {
  if (status === "queued") return { queued: "waiting" }
  if (status === "active") return { active: "working" }
  if (status === "paused") return { paused: "stopped" }
  return status
}
