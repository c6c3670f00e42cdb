// What leaves the undo journal's SQLite store: whole turns dropped to keep the bound (with the blobs no kept entry
// or delta needs, and each session's mark of its newest dropped change), and an entry taken back because the change it
// named failed.
import { and, eq, inArray, isNull, type SQL, sql } from "drizzle-orm"
import type { JournalPruned, JournalTurn } from "../../services/files/journal.ports"
import type { ForgeDatabase } from "./storage.connection"
import { fileBlobs, fileJournal, fileReverts } from "./tables/journal.tables"
import { keyValue } from "./tables/keyvalue.tables"

// A transaction handle offers the same query builders as the database.
export type Queryable = Pick<ForgeDatabase, "insert" | "select" | "update" | "delete">

/** SQLite caps bound parameters per statement: id lists are sent in slices. */
export const SLICE = 500

/** The blobs' stored bytes in all: what the journal's bound counts. */
export async function totalBytes(db: Queryable): Promise<number> {
  const rows = await db.select({ total: sql<number>`coalesce(sum(${fileBlobs.size}), 0)`.as("total") }).from(fileBlobs)
  return Number(rows[0]?.total ?? 0)
}

/** key_value names of the per-session prune marks: the time of each session's newest dropped change. */
const PRUNED_KEY = "file_journal.pruned:"

export async function prunedUntilIn(db: Queryable, session: string): Promise<number | undefined> {
  const rows = await db
    .select({ value: keyValue.value })
    .from(keyValue)
    .where(eq(keyValue.name, `${PRUNED_KEY}${session}`))
    .limit(1)
  const value = rows[0]?.value
  if (value === undefined) return undefined
  try {
    const at = (JSON.parse(value) as { at?: unknown }).at
    return typeof at === "number" && Number.isFinite(at) ? at : undefined
  } catch {
    // A damaged mark says nothing; the rewind goes on without its note.
    return undefined
  }
}

/** The entries of one pruning unit: a session's turn, or the one entry recorded outside any turn. */
function turnWhere(turn: JournalTurn): SQL | undefined {
  return turn.turn === null
    ? and(eq(fileJournal.id, turn.firstId), isNull(fileJournal.turnId))
    : and(eq(fileJournal.sessionId, turn.session), eq(fileJournal.turnId, turn.turn))
}

/** Deletes the turns' entries, then every blob no remaining entry names (JournalStore.dropTurns), in the caller's transaction. */
export async function dropTurnsIn(tx: Queryable, turns: readonly JournalTurn[]): Promise<JournalPruned> {
  let entries = 0
  const prunedAt = new Map<string, number>()
  for (const turn of turns) {
    const deleted = await tx.delete(fileJournal).where(turnWhere(turn)).returning({ id: fileJournal.id, session: fileJournal.sessionId, at: fileJournal.at })
    const dropped = deleted.map((row) => row.id)
    entries += dropped.length
    for (const row of deleted) prunedAt.set(row.session, Math.max(prunedAt.get(row.session) ?? 0, row.at))
    // A dropped entry's own reverts go with it; a dropped reverter's stay (what it took back stays taken back).
    for (let at = 0; at < dropped.length; at += SLICE) await tx.delete(fileReverts).where(inArray(fileReverts.revertedId, dropped.slice(at, at + SLICE)))
  }
  for (const [session, at] of prunedAt) {
    const name = `${PRUNED_KEY}${session}`
    const value = JSON.stringify({ at: Math.max(at, (await prunedUntilIn(tx, session)) ?? 0) })
    await tx
      .insert(keyValue)
      .values({ name, value, updatedAt: at })
      .onConflictDoUpdate({ target: keyValue.name, set: { value, updatedAt: at } })
  }
  // Every blob no remaining entry names goes (whichever deletion left it unnamed), unless a kept blob is a
  // delta against it (through any number of deltas).
  const kept = sql`with recursive kept(hash) as (
        select ${fileJournal.beforeHash} from ${fileJournal} where ${fileJournal.beforeHash} is not null
        union select ${fileJournal.afterHash} from ${fileJournal} where ${fileJournal.afterHash} is not null
        union select b.base from file_blobs b join kept k on b.hash = k.hash where b.base is not null
      ) select hash from kept`
  const freed = await tx.delete(fileBlobs).where(sql`${fileBlobs.hash} not in (${kept})`).returning({ size: fileBlobs.size })
  return {
    entries,
    blobs: freed.length,
    freedBytes: freed.reduce((sum, blob) => sum + blob.size, 0),
    totalBytes: await totalBytes(tx),
  }
}

/** Deletes an entry and the blobs no other entry names nor blob reads through (JournalStore.retract). */
export async function retractEntry(tx: Queryable, id: number): Promise<void> {
  const [entry] = await tx.delete(fileJournal).where(eq(fileJournal.id, id)).returning({ before: fileJournal.beforeHash, after: fileJournal.afterHash })
  await tx.delete(fileReverts).where(eq(fileReverts.reverterId, id))
  // The version after first: it may be a delta against the version before.
  for (const hash of [entry?.after, entry?.before]) {
    if (hash === null || hash === undefined) continue
    await tx.delete(fileBlobs).where(
      sql`${fileBlobs.hash} = ${hash} and not exists (select 1 from ${fileJournal} where ${fileJournal.beforeHash} = ${hash} or ${fileJournal.afterHash} = ${hash})
          and not exists (select 1 from file_blobs b where b.base = ${hash})`,
    )
  }
}
