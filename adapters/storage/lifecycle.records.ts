// Validation and encoding of the lifecycle records, so bad input fails before it reaches SQL (lifecycle.rows.ts decodes
// the rows read back).
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

/** An `actors` row as written: revision and seq are the repository's to set. */
export type ActorWrite = Omit<typeof actors.$inferSelect, "revision" | "seq">
type TransitionInsert = typeof transitions.$inferInsert

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
