import type { StateValue } from "xstate"

/** "approved.working" style text for logs and the transition table; parallel regions join with ",". */
export function stateToString(value: StateValue): string {
  if (typeof value === "string") return value
  return Object.entries(value)
    .map(([key, child]) => (child === undefined ? key : `${key}.${stateToString(child)}`))
    .join(",")
}
