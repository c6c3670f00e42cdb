import type { StateValue } from "xstate"

/** Record statuses are the crew machine's top-level states (registering is passed through within one step). */
export const CREW_STATUSES = ["pending", "executing", "closed", "abandoned", "converted"] as const
export type CrewStatus = (typeof CREW_STATUSES)[number]

export function crewStatusOf(value: StateValue): CrewStatus {
  const top = typeof value === "string" ? value : Object.keys(value)[0]
  return (top === "registering" ? "pending" : top) as CrewStatus
}
