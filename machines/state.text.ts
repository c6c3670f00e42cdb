import type { StateValue } from "xstate"

/** "approved.working" style text for logs and the transition table; parallel regions join with ",". */
export function stateToString(value: StateValue): string {
  if (typeof value === "string") return value
  return Object.entries(value)
    .map(([key, child]) => (child === undefined ? key : `${key}.${stateToString(child)}`))
    .join(",")
}

/** What `snapshotStateText` reads of a snapshot: its value and the actors it invokes. */
interface StateSnapshot {
  value: StateValue
  children?: Record<string, unknown>
}

/**
 * A snapshot's state for logs and records, with the state of the machine its active state invokes appended
 * ("running.coding.working": the loop's phase, then its pass): one path a reader follows, as if the child's states
 * were the phase's own.
 */
export function snapshotStateText(snapshot: StateSnapshot): string {
  const own = stateToString(snapshot.value)
  const inner = Object.values(snapshot.children ?? {}).flatMap((child) => {
    const state = (child as { getSnapshot?: () => unknown } | undefined)?.getSnapshot?.() as { value?: StateValue; status?: string } | undefined
    return state?.value !== undefined && state.status === "active" ? [stateToString(state.value)] : []
  })
  return inner.length === 0 ? own : `${own}.${inner.join(",")}`
}
