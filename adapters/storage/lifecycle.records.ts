// Validation and row mapping for the lifecycle records, so bad input fails before it reaches SQL and a
// corrupt row fails naming the actor it belongs to.
import * as z from "zod"
import type { SnapshotRecord, TransitionRecord } from "../../services/lifecycle/lifecycle.ports"
import type { actors, transitions } from "./tables/lifecycle.tables"

const name = z.string().min(1)
const epochMillis = z.number().int().nonnegative()

/** Shape of a SnapshotRecord accepted by the repository. */
export const snapshotRecordSchema = z.object({
  machineId: name,
  machineVersion: name,
  instanceId: name,
  sessionId: name.nullable(),
  state: name,
  terminal: z.boolean(),
  snapshot: z.unknown(),
  document: name.nullable(),
  updatedAt: epochMillis,
  exclusiveKey: name.nullable().optional(),
  revision: z.number().int().nonnegative().optional(),
})

/** Shape of a TransitionRecord accepted by the repository. */
export const transitionRecordSchema = z.object({
  machineId: name,
  instanceId: name,
  sessionId: name.nullable(),
  from: name,
  event: name,
  to: name,
  at: epochMillis,
})

type ActorRow = typeof actors.$inferSelect
/** An `actors` row as written: revision and seq are the repository's to set. */
export type ActorWrite = Omit<ActorRow, "revision" | "seq">
type TransitionInsert = typeof transitions.$inferInsert
type TransitionRow = typeof transitions.$inferSelect

/** Validates a snapshot record and encodes it as an `actors` row; `where` names the caller in errors. */
export function toActorRow(record: SnapshotRecord, where: string): ActorWrite {
  const parsed = snapshotRecordSchema.safeParse(record)
  if (!parsed.success) throw new Error(`${where}: invalid snapshot record:\n${z.prettifyError(parsed.error)}`)
  const value = parsed.data
  const id = `${value.machineId}/${value.instanceId}`
  let json: string | undefined
  try {
    json = JSON.stringify(value.snapshot)
  } catch (error) {
    throw new Error(`${where}: snapshot of ${id} is not serializable as JSON: ${(error as Error).message}`)
  }
  if (json === undefined) {
    throw new Error(`${where}: snapshot of ${id} is not serializable as JSON (got ${typeof value.snapshot})`)
  }
  const { revision: _ignored, exclusiveKey, ...fields } = value
  return { ...fields, exclusiveKey: exclusiveKey ?? null, snapshot: json }
}

/** Validates a transition record and encodes it as a `transitions` insert. */
export function toTransitionInsert(record: TransitionRecord, where: string): TransitionInsert {
  const parsed = transitionRecordSchema.safeParse(record)
  if (!parsed.success) throw new Error(`${where}: invalid transition record:\n${z.prettifyError(parsed.error)}`)
  const { from, to, ...rest } = parsed.data
  return { ...rest, fromState: from, toState: to }
}

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
