import type { AnyStateMachine } from "xstate"
import { planMachine } from "./plan.machine"

export * from "./plan.gates"
export * from "./plan.machine"
export * from "./plan.refusals"
export * from "./plan.status"
export * from "./state.text"

/** Every lifecycle machine, for diagrams, inspection and embedding harnesses. */
export const machineCatalog: readonly AnyStateMachine[] = [planMachine]
