import { type AnyMachineSnapshot, type AnyStateMachine, type SnapshotFrom, StateMachine, type StateValue } from "xstate"
import type { LifecycleDefinition, PersistedChild, PersistedShape } from "./lifecycle.definition"
import { restoredSnapshot } from "./lifecycle.step"
import type { SnapshotRecord } from "./lifecycle.ports"

// The one restore path: a persisted snapshot is checked before any actor runs on it — its shape, the machine version
// it was written by (brought up to date by the lifecycle's `upgrade`, or refused), its context, and finally the
// machine itself (`resolveState`), and the machines its active states invoke (each one present, and fitting its own
// machine). A record that does not fit is reported in words that name it; nothing throws.

export type RestoreOutcome<TMachine extends AnyStateMachine> = { kind: "restored"; snapshot: SnapshotFrom<TMachine> } | { kind: "unfit"; problem: string }

/** The machine's own snapshot for a record, or what is wrong with the record. */
export function resolveRecord<TMachine extends AnyStateMachine>(
  definition: LifecycleDefinition<TMachine>,
  record: SnapshotRecord,
): { snapshot: SnapshotFrom<TMachine> } | { problem: string } {
  const { machine } = definition
  const name = `${record.machineId} ${record.instanceId}`
  const persisted = record.snapshot as { value?: StateValue; context?: unknown; children?: Record<string, PersistedChild> } | null
  if (persisted === null || typeof persisted !== "object" || persisted.value === undefined || persisted.context === undefined) {
    return { problem: `${name}: persisted snapshot has no value or context` }
  }
  const version = machine.version ?? "0"
  let shape: PersistedShape = { value: persisted.value, context: persisted.context, children: persisted.children ?? {} }
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
  let resolved: AnyMachineSnapshot
  try {
    resolved = machine.resolveState({ value: shape.value, context: shape.context as SnapshotFrom<TMachine>["context"] }) as AnyMachineSnapshot
  } catch (error) {
    return { problem: `${name}: snapshot does not fit the ${machine.id} machine (${message(error)})` }
  }
  const children = shape.children ?? {}
  const childProblem = childrenProblem(definition, resolved, children)
  if (childProblem !== null) return { problem: `${name}: ${childProblem}` }
  if (Object.keys(children).length === 0) return { snapshot: resolved as SnapshotFrom<TMachine> }
  return { snapshot: restoredSnapshot(machine, { ...machine.getPersistedSnapshot(resolved), children }) as SnapshotFrom<TMachine> }
}

/** What is wrong with the invoked machines of a record: one its active states invoke is missing, or does not fit. */
function childrenProblem<TMachine extends AnyStateMachine>(
  definition: LifecycleDefinition<TMachine>,
  resolved: AnyMachineSnapshot,
  children: Record<string, PersistedChild>,
): string | null {
  const { machine } = definition
  if (resolved.status !== "active") return null
  for (const node of resolved._nodes) {
    for (const invoke of node.invoke) {
      const child = children[invoke.id]
      if (child === undefined) return `its ${node.id} state invokes ${invoke.id}, and the record has no ${invoke.id}`
      const logic = typeof invoke.src === "string" ? machine.implementations.actors[invoke.src] : invoke.src
      if (!(logic instanceof StateMachine)) continue
      try {
        logic.resolveState({ value: child.snapshot.value ?? {}, context: child.snapshot.context })
      } catch (error) {
        return `its ${invoke.id} does not fit the ${logic.id} machine (${message(error)})`
      }
      const problem = definition.childContextProblem?.(invoke.id, child.snapshot.context) ?? null
      if (problem !== null) return `its ${invoke.id}: ${problem}`
    }
  }
  return null
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
