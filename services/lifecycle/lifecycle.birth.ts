import type { AnyStateMachine, InputFrom, SnapshotFrom } from "xstate"
import { GateRefusal } from "./gate.refusal"
import type { LifecycleDefinition } from "./lifecycle.definition"
import type { RequestedEffect } from "./lifecycle.effects"
import { initialStep } from "./lifecycle.step"

/**
 * A new instance's first step, computed purely (nothing runs, nothing is recorded): its snapshot and the effects it
 * asks for. Throws the machine's refusal when the lifecycle's birth gate refuses it, so such an instance is never created.
 */
export function firstStep<TMachine extends AnyStateMachine>(
  definition: LifecycleDefinition<TMachine>,
  input: InputFrom<TMachine>,
): [SnapshotFrom<TMachine>, readonly RequestedEffect[]] {
  const { snapshot: first, requested } = initialStep(definition.machine, input)
  const snapshot = first as SnapshotFrom<TMachine>
  const refusal = definition.birthRefusal?.(snapshot) ?? null
  if (refusal !== null) throw new GateRefusal(definition.machine.id, "xstate.init", refusal)
  return [snapshot, requested]
}
