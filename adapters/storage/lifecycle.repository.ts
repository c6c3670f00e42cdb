// LifecycleRepository over drizzle (sqlite-proxy) on one StorageConnection: the same code path for both drivers.
import { and, asc, desc, eq, gt, inArray, isNotNull, ne, or, type SQL, sql } from "drizzle-orm"
import { ExclusiveKeyTaken } from "../../services/lifecycle/exclusive.key"
import type {
  ChangedRecords,
  LifecycleRepository,
  SnapshotQuery,
  SnapshotRecord,
  KeyHolder,
  StepDecision,
  TransitionFilter,
  TransitionRecord,
} from "../../services/lifecycle/lifecycle.ports"
import { type ActorWrite, toActorRow, toTransitionInsert } from "./lifecycle.records"
import { fromActorRow, fromActorRowForStep, fromTransitionRow } from "./lifecycle.rows"
import { databaseStamp } from "./database.stamp"
import type { ForgeDatabase, StorageConnection } from "./storage.connection"
import { actors, transitions } from "./tables/lifecycle.tables"

// A transaction handle offers the same query builders as the database.
type Queryable = Pick<ForgeDatabase, "insert" | "select">

/** Actor snapshots and the transition log in SQLite. Every call runs alone on the connection, in call order. */
export class SqliteLifecycleRepository implements LifecycleRepository {
  private closed = false

  /** Uses (does not own) `connection`: closing the repository leaves the connection open for others. */
  constructor(private readonly connection: StorageConnection) {}

  async commit(snapshot: SnapshotRecord, transition: TransitionRecord): Promise<void> {
    const row = toActorRow(snapshot, "commit")
    const entry = toTransitionInsert(transition, "commit")
    await this.exclusive((db) =>
      db.transaction(
        async (tx) => {
          await upsertActor(tx, row)
          await tx.insert(transitions).values(entry)
        },
        { behavior: "immediate" },
      ),
    )
  }

  async step(machineId: string, instanceId: string, decide: StepDecision): Promise<SnapshotRecord | undefined> {
    return this.exclusive((db) =>
      db.transaction(
        async (tx) => {
          const row = await tx
            .select()
            .from(actors)
            .where(and(eq(actors.machineId, machineId), eq(actors.instanceId, instanceId)))
            .get()
          const holderOf: KeyHolder = (key) =>
            tx.select({ machineId: actors.machineId, instanceId: actors.instanceId }).from(actors).where(eq(actors.exclusiveKey, key)).get()
          const decided = await decide(row === undefined ? undefined : fromActorRowForStep(row), holderOf)
          if (decided === undefined) return undefined
          const actor = toActorRow(decided.snapshot, "step")
          if (actor.machineId !== machineId || actor.instanceId !== instanceId)
            throw new Error(`step: decided a record for another instance than ${machineId} ${instanceId}`)
          await upsertActor(tx, actor)
          await tx.insert(transitions).values(toTransitionInsert(decided.transition, "step"))
          const written = await tx
            .select()
            .from(actors)
            .where(and(eq(actors.machineId, machineId), eq(actors.instanceId, instanceId)))
            .get()
          return written === undefined ? undefined : fromActorRow(written)
        },
        { behavior: "immediate" },
      ),
    )
  }

  async changedSince(seq: number, machineIds?: readonly string[]): Promise<ChangedRecords> {
    const conditions: SQL[] = [gt(actors.seq, seq)]
    if (machineIds !== undefined) conditions.push(inArray(actors.machineId, [...machineIds]))
    const rows = await this.exclusive((db) =>
      db
        .select()
        .from(actors)
        .where(and(...conditions))
        .orderBy(asc(actors.seq)),
    )
    const records: SnapshotRecord[] = []
    let newest = seq
    for (const row of rows) {
      newest = Math.max(newest, row.seq)
      try {
        records.push(fromActorRow(row))
      } catch {
        // A row that cannot be decoded is reported by a full load; a change feed skips it.
      }
    }
    return { records, seq: newest }
  }

  async dataVersion(): Promise<number> {
    const row = await this.exclusive((db) => db.get<{ data_version: number } | [number]>(sql`PRAGMA data_version`))
    const value = Array.isArray(row) ? row[0] : row?.data_version
    if (typeof value !== "number") throw new Error(`PRAGMA data_version answered ${JSON.stringify(row)}`)
    return value
  }

  changeStamp(): string | undefined {
    return databaseStamp(this.connection.driver.file)
  }

  async saveSnapshot(snapshot: SnapshotRecord): Promise<void> {
    const row = toActorRow(snapshot, "saveSnapshot")
    await this.exclusive((db) => upsertActor(db, row))
  }

  async loadSnapshots(query: SnapshotQuery = {}): Promise<SnapshotRecord[]> {
    const conditions: SQL[] = []
    if (query.machineId !== undefined) conditions.push(eq(actors.machineId, query.machineId))
    if (query.includeTerminal === false) conditions.push(eq(actors.terminal, false))
    const rows = await this.exclusive((db) =>
      db
        .select()
        .from(actors)
        .where(and(...conditions))
        .orderBy(asc(actors.machineId), asc(actors.instanceId)),
    )
    const records: SnapshotRecord[] = []
    for (const row of rows) {
      try {
        records.push(fromActorRow(row))
      } catch (error) {
        const { machineId, instanceId, sessionId, document } = row
        query.onDamaged?.({ machineId, instanceId, sessionId, document, problem: error instanceof Error ? error.message : String(error) })
      }
    }
    return records
  }

  async instanceIds(machineId: string): Promise<string[]> {
    const rows = await this.exclusive((db) => db.select({ instanceId: actors.instanceId }).from(actors).where(eq(actors.machineId, machineId)))
    return rows.map((row) => row.instanceId)
  }

  async getSnapshot(machineId: string, instanceId: string): Promise<SnapshotRecord | undefined> {
    const row = await this.exclusive((db) =>
      db
        .select()
        .from(actors)
        .where(and(eq(actors.machineId, machineId), eq(actors.instanceId, instanceId)))
        .get(),
    )
    return row === undefined ? undefined : fromActorRow(row)
  }

  async listTransitions(filter: TransitionFilter = {}): Promise<TransitionRecord[]> {
    const conditions: SQL[] = []
    if (filter.machineId !== undefined) conditions.push(eq(transitions.machineId, filter.machineId))
    if (filter.instanceId !== undefined) conditions.push(eq(transitions.instanceId, filter.instanceId))
    if (filter.sessionId !== undefined) conditions.push(eq(transitions.sessionId, filter.sessionId))
    const rows = await this.exclusive((db) =>
      db
        .select()
        .from(transitions)
        .where(and(...conditions))
        .orderBy(asc(transitions.id)),
    )
    return rows.map(fromTransitionRow)
  }

  async pruneTerminal(machineId: string, keep: number): Promise<number> {
    if (!Number.isInteger(keep) || keep < 0) throw new Error(`pruneTerminal: keep must be a whole number >= 0, got ${keep}`)
    // SQLite caps bound parameters per statement: delete in slices.
    const SLICE = 500
    return this.exclusive((db) =>
      db.transaction(
        async (tx) => {
          const stale = await tx
            .select({ instanceId: actors.instanceId })
            .from(actors)
            .where(and(eq(actors.machineId, machineId), eq(actors.terminal, true)))
            .orderBy(desc(actors.updatedAt), desc(actors.instanceId))
          const ids = stale.slice(keep).map((row) => row.instanceId)
          for (let at = 0; at < ids.length; at += SLICE) {
            const slice = ids.slice(at, at + SLICE)
            await tx.delete(transitions).where(and(eq(transitions.machineId, machineId), inArray(transitions.instanceId, slice)))
            await tx.delete(actors).where(and(eq(actors.machineId, machineId), inArray(actors.instanceId, slice)))
          }
          return ids.length
        },
        { behavior: "immediate" },
      ),
    )
  }

  /** Waits for calls already made, then refuses new ones. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.connection.exclusive(async () => undefined).catch(() => undefined)
  }

  private exclusive<T>(work: (db: ForgeDatabase) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error("lifecycle repository is closed"))
    return this.connection.exclusive(work)
  }
}

// Every write bumps the row's revision and takes the next place in the workspace's order of writes. A key another
// live instance holds is refused by name (the unique index would refuse it too, in words no one could act on).
async function upsertActor(db: Queryable, row: ActorWrite): Promise<void> {
  const { machineId, instanceId, ...changes } = row
  if (row.exclusiveKey !== null) {
    const holder = await db
      .select({ machineId: actors.machineId, instanceId: actors.instanceId })
      .from(actors)
      .where(
        and(eq(actors.exclusiveKey, row.exclusiveKey), isNotNull(actors.exclusiveKey), or(ne(actors.machineId, machineId), ne(actors.instanceId, instanceId))),
      )
      .get()
    if (holder !== undefined) throw new ExclusiveKeyTaken(row.exclusiveKey, holder.machineId, holder.instanceId)
  }
  const next = sql`(select coalesce(max(${actors.seq}), 0) + 1 from ${actors})`
  await db
    .insert(actors)
    .values({ ...row, revision: 1, seq: next })
    .onConflictDoUpdate({ target: [actors.machineId, actors.instanceId], set: { ...changes, revision: sql`${actors.revision} + 1`, seq: next } })
}
