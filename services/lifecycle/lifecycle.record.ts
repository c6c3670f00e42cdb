import type { AnyMachineSnapshot, AnyStateMachine, SnapshotFrom } from "xstate"
import { snapshotStateText } from "../../machines/state.text"
import type { LifecycleDefinition } from "./lifecycle.definition"
import type { SnapshotRecord } from "./lifecycle.ports"

/** The record one instance's snapshot is persisted as; a finished instance holds no exclusive key. */
export function snapshotRecordOf<TMachine extends AnyStateMachine>(
  definition: LifecycleDefinition<TMachine>,
  instanceId: string,
  typed: SnapshotFrom<TMachine>,
  now: number,
): SnapshotRecord {
  const { machine } = definition
  const meta = definition.metaOf(typed)
  const snapshot = typed as AnyMachineSnapshot
  return {
    machineId: machine.id,
    machineVersion: machine.version ?? "0",
    instanceId,
    sessionId: meta.sessionId,
    state: snapshotStateText(snapshot),
    terminal: snapshot.status === "done",
    snapshot: machine.getPersistedSnapshot(snapshot),
    document: meta.document,
    exclusiveKey: snapshot.status === "done" ? null : (meta.exclusiveKey ?? null),
    updatedAt: now,
  }
}
