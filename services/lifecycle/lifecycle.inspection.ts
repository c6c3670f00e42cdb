import type { AnyMachineSnapshot, AnyStateMachine } from "xstate"
import type { InstanceListeners } from "./instance.listeners"

// Live inspection of the host's lifecycles (the `inspect` plugin option): every new snapshot of every instance, told
// to whoever watches. The watcher is outside the tool calls it observes, so it must never delay or break one.

export interface LifecycleInspection {
  /**
   * An instance's new snapshot: its birth, a step, a restore, a record another process wrote. Returns at once and never
   * throws; what it cannot pass on it drops (and counts).
   */
  snapshot(machine: AnyStateMachine, instanceId: string, snapshot: AnyMachineSnapshot): void
}

/** Tells `inspection` (if any) of every new snapshot `listeners` hears of: a step, or a record another process wrote. */
export function inspectEverySnapshot<S>(inspection: LifecycleInspection | undefined, machine: AnyStateMachine, listeners: InstanceListeners<S>): void {
  if (inspection === undefined) return
  listeners.observe((instanceId, snapshot) => inspection.snapshot(machine, instanceId, snapshot as AnyMachineSnapshot))
}
