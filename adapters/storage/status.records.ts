// Every lifecycle record and driver claim of a workspace database, read for inspection (forgecharts status) through the
// driver with two plain SELECTs: no drizzle and no zod, whose loading cost the CLI more than the reading (about 100 ms
// of a 224 ms status run on 1,000 records, bench/status.ts). The database is opened and migrated as openLifecycleStore
// opens it, and the rows are decoded as the repository's loadSnapshots decodes them, in its order.
import type { ClaimRow } from "../../services/lifecycle/driver.claim.ports"
import type { DamagedSnapshot, SnapshotRecord } from "../../services/lifecycle/lifecycle.ports"
import { type ActorRow, fromActorRow } from "./lifecycle.rows"
import { migrate } from "./migrator"
import { migrations } from "./migrations.generated"
import { openSqliteDriver, type SqlValue } from "./sqlite.driver"

export interface InspectedRecords {
  /** Every record, finished ones included, by machine id and then instance id. */
  records: SnapshotRecord[]
  /** The rows that cannot be decoded, with why (each one costs only its own instance). */
  damaged: DamagedSnapshot[]
  claims: ClaimRow[]
}

const ACTORS = `SELECT machine_id, instance_id, machine_version, session_id, state, terminal, snapshot, document, updated_at, revision, seq, exclusive_key
  FROM actors ORDER BY machine_id ASC, instance_id ASC`
const CLAIMS = "SELECT machine_id, instance_id, holder, until FROM driver_claims"

/** Reads the database `file` (which must exist: inspection never creates one), migrating it first as every open does. */
export async function inspectLifecycleRecords(file: string): Promise<InspectedRecords> {
  const driver = await openSqliteDriver(file)
  try {
    await migrate(driver, migrations)
    const actorRows = await driver.all(ACTORS)
    const claimRows = await driver.all(CLAIMS)
    const inspected: InspectedRecords = { records: [], damaged: [], claims: claimRows.map(claimRow) }
    for (const values of actorRows) {
      const row = actorRow(values)
      try {
        inspected.records.push(fromActorRow(row))
      } catch (error) {
        const { machineId, instanceId, sessionId, document } = row
        inspected.damaged.push({ machineId, instanceId, sessionId, document, problem: error instanceof Error ? error.message : String(error) })
      }
    }
    return inspected
  } finally {
    await driver.close()
  }
}

const text = (value: SqlValue | undefined): string => (typeof value === "string" ? value : String(value))
const textOrNull = (value: SqlValue | undefined): string | null => (value === null || value === undefined ? null : text(value))

/** An `actors` row as drizzle maps it (its boolean column: 1 is true). */
function actorRow(values: SqlValue[]): ActorRow {
  const [machineId, instanceId, machineVersion, sessionId, state, terminal, snapshot, document, updatedAt, revision, seq, exclusiveKey] = values
  return {
    machineId: text(machineId),
    instanceId: text(instanceId),
    machineVersion: text(machineVersion),
    sessionId: textOrNull(sessionId),
    state: text(state),
    terminal: Number(terminal) === 1,
    snapshot: text(snapshot),
    document: textOrNull(document),
    updatedAt: Number(updatedAt),
    revision: Number(revision),
    seq: Number(seq),
    exclusiveKey: textOrNull(exclusiveKey),
  }
}

function claimRow([machineId, instanceId, holder, until]: SqlValue[]): ClaimRow {
  return { machineId: text(machineId), instanceId: text(instanceId), holder: text(holder), until: Number(until) }
}
