import type { AnyStateMachine } from "xstate"
import { goalMachine } from "./goal.machine"
import { jobMachine } from "./job.machine"
import { planMachine } from "./plan.machine"
import { watchdogMachine } from "./watchdog.machine"

export * from "./agent.partition"
export * from "./exec.partition"
export * from "./goal.gates"
export * from "./goal.machine"
export * from "./goal.refusals"
export * from "./goal.status"
export * from "./job.gates"
export * from "./job.machine"
export * from "./plan.gates"
export * from "./plan.machine"
export * from "./plan.refusals"
export * from "./plan.status"
export * from "./state.text"
export * from "./watchdog.gates"
export * from "./watchdog.machine"

/** Every lifecycle machine, for diagrams, inspection and embedding harnesses. */
export const machineCatalog: readonly AnyStateMachine[] = [planMachine, jobMachine, watchdogMachine, goalMachine]
