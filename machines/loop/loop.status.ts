import type { StateValue } from "xstate"

/** A loop's status is the loop machine's top-level state. */
export type LoopStatus = "running" | "completed" | "cancelled" | "errored" | "stalled"

export function loopStatusOf(value: StateValue): LoopStatus {
  const top = typeof value === "string" ? value : Object.keys(value)[0]
  // `starting` is passed within the first step; `refused` is never recorded.
  return (top === "starting" || top === "refused" ? "running" : top) as LoopStatus
}
