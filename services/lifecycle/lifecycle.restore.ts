import type { AnyStateMachine, SnapshotFrom, StateValue } from "xstate"
import type { LifecycleDefinition, PersistedShape } from "./lifecycle.definition"
import type { SnapshotRecord } from "./lifecycle.ports"

// The one restore path: a persisted snapshot is checked before any actor runs on it — its shape, the machine version
// it was written by (brought up to date by the lifecycle's `upgrade`, or refused), its context, and finally the
// machine itself (`resolveState`). A record that does not fit is reported in words that name it; nothing throws.

export type RestoreOutcome<TMachine extends AnyStateMachine> = { kind: "restored"; snapshot: SnapshotFrom<TMachine> } | { kind: "unfit"; problem: string }

/** The machine's own snapshot for a record, or what is wrong with the record. */
export function resolveRecord<TMachine extends AnyStateMachine>(
  definition: LifecycleDefinition<TMachine>,
  record: SnapshotRecord,
): { snapshot: SnapshotFrom<TMachine> } | { problem: string } {
  const { machine } = definition
  const name = `${record.machineId} ${record.instanceId}`
  const persisted = record.snapshot as { value?: StateValue; context?: unknown } | null
  if (persisted === null || typeof persisted !== "object" || persisted.value === undefined || persisted.context === undefined) {
    return { problem: `${name}: persisted snapshot has no value or context` }
  }
  const version = machine.version ?? "0"
  let shape: PersistedShape = { value: persisted.value, context: persisted.context }
  if (definition.upgrade !== undefined) {
    try {
      shape = definition.upgrade(shape, record.machineVersion)
    } catch (error) {
      return {
        problem: `${name}: written by version ${record.machineVersion} of the ${machine.id} machine, which version ${version} cannot take (${message(error)})`,
      }
    }
  } else if (record.machineVersion !== version) {
    return { problem: `${name}: written by version ${record.machineVersion} of the ${machine.id} machine; this is version ${version}` }
  }
  const problem = definition.contextProblem?.(shape.context) ?? null
  if (problem !== null) return { problem: `${name}: ${problem}` }
  try {
    const snapshot = machine.resolveState({ value: shape.value, context: shape.context as SnapshotFrom<TMachine>["context"] }) as SnapshotFrom<TMachine>
    return { snapshot }
  } catch (error) {
    return { problem: `${name}: snapshot does not fit the ${machine.id} machine (${message(error)})` }
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
