import type { ActorLogic, AnyMachineSnapshot, AnyStateMachine, EventFromLogic, InputFrom, SnapshotFrom } from "xstate"
import { initialStep, step } from "../services/lifecycle/lifecycle.step"

// A machine as Forge's host steps it, for a path search and for a replay: pure, with the machines it invokes.

/** The first snapshot of an instance born of `input` (its invoked machines started). */
export function initialSnapshot<M extends AnyStateMachine>(machine: M, input: InputFrom<M>): SnapshotFrom<M> {
  return initialStep(machine, input).snapshot as SnapshotFrom<M>
}

/**
 * The machine as the host steps it (lifecycle.step.ts): with the machines it invokes, so a path walks a phase's pass
 * too. xstate/graph's createTestModel refuses a machine that invokes; its TestModel walks any actor logic.
 */
export function hostLogicOf<M extends AnyStateMachine>(machine: M): ActorLogic<SnapshotFrom<M>, EventFromLogic<M>, InputFrom<M>> {
  return {
    transition: (snapshot, event) => step(machine, snapshot as AnyMachineSnapshot, event).snapshot as SnapshotFrom<M>,
    getInitialSnapshot: (_scope, input) => initialSnapshot(machine, input as InputFrom<M>),
    getPersistedSnapshot: (snapshot) => machine.getPersistedSnapshot(snapshot),
  }
}

/** A state as a path search tells states apart: value, context and status, and those of the machines it invokes. */
export function modelStateKey(state: AnyMachineSnapshot): string {
  const children = Object.fromEntries(
    Object.entries(state.children as Record<string, { getSnapshot(): AnyMachineSnapshot } | undefined>).map(([id, ref]) => {
      const child = ref?.getSnapshot()
      return [id, child === undefined ? null : { value: child.value, context: child.context, status: child.status }]
    }),
  )
  return JSON.stringify({ value: state.value, context: state.context, status: state.status, children })
}
