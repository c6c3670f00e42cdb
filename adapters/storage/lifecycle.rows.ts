// Decoding the lifecycle rows read back, a corrupt one failing with the actor it belongs to. Kept apart from the
// validation of writes (lifecycle.records.ts, zod): a reader that only reads, as forgecharts status, loads no zod.
import type { SnapshotRecord, TransitionRecord } from "../../services/lifecycle/lifecycle.ports"
import type { actors, transitions } from "./tables/lifecycle.tables"

/** An `actors` row as drizzle reads it. */
export type ActorRow = typeof actors.$inferSelect
type TransitionRow = typeof transitions.$inferSelect

/** Decodes an `actors` row. */
export function fromActorRow(row: ActorRow): SnapshotRecord {
  let snapshot: unknown
  try {
    snapshot = JSON.parse(row.snapshot)
  } catch (error) {
    const id = `${row.machineId}/${row.instanceId}`
    throw new Error(`actors row ${id}: snapshot is not valid JSON: ${(error as Error).message}`)
  }
  return {
    machineId: row.machineId,
    machineVersion: row.machineVersion,
    instanceId: row.instanceId,
    sessionId: row.sessionId,
    state: row.state,
    terminal: row.terminal,
    snapshot,
    document: row.document,
    updatedAt: row.updatedAt,
    exclusiveKey: row.exclusiveKey,
    revision: row.revision,
  }
}

/**
 * Decodes an `actors` row for a step on it: a snapshot that is not JSON is handed on as `null`, so the lifecycle
 * reports it as a record that does not fit (and a replacement from outside truth can still be written over it).
 */
export function fromActorRowForStep(row: ActorRow): SnapshotRecord {
  try {
    return fromActorRow(row)
  } catch {
    return fromActorRow({ ...row, snapshot: "null" })
  }
}

/** Decodes a `transitions` row. */
export function fromTransitionRow(row: TransitionRow): TransitionRecord {
  return {
    machineId: row.machineId,
    instanceId: row.instanceId,
    sessionId: row.sessionId,
    from: row.fromState,
    event: row.event,
    to: row.toState,
    at: row.at,
  }
}
