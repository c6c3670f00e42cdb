// The undo journal's store in SQLite, on the workspace database's connection (both drivers through drizzle's
// sqlite-proxy): entries in `file_journal`, contents once each in `file_blobs` under their sha256. Every call runs
// alone on the connection; the calls that write several statements run them in one IMMEDIATE transaction. What leaves
// it (dropped turns, a retracted entry) is journal.drop.ts's.
import { sep } from "node:path"
import { and, asc, desc, eq, gte, inArray, sql } from "drizzle-orm"
import type { JournalBlob, JournalEntry, JournalListOptions, JournalPruned, JournalStore, JournalTurn, JournalWrite } from "../../services/files/journal.ports"
import type { StorageConnection } from "./storage.connection"
import { type JournalRevert, undoneByOf } from "../../services/files/journal.standing"
import { KnownBlobs, appendAlone } from "./journal.append"
import { type Queryable, SLICE, dropTurnsIn, prunedUntilIn, retractEntry, totalBytes } from "./journal.drop"
import { MAX_DEPTH, decodeBlob, encodeBlob, readsThroughBase } from "./journal.blobs"
import { fileBlobs, fileJournal, fileReverts } from "./tables/journal.tables"

type JournalRow = typeof fileJournal.$inferSelect

function fromRow(row: JournalRow, undoneBy: number | null): JournalEntry {
  return {
    id: row.id,
    session: row.sessionId,
    message: row.messageId,
    turn: row.turnId,
    tool: row.tool,
    path: row.path,
    before: row.beforeHash,
    after: row.afterHash,
    beforeMode: row.beforeMode,
    afterMode: row.afterMode,
    observed: row.observed,
    at: row.at,
    undoneBy,
  }
}

/** Stores a blob whole (compressed where that saves space) unless its hash is stored already (asked first). */
async function insertBlob(db: Queryable, blob: JournalBlob): Promise<void> {
  const [stored] = await db.select({ depth: fileBlobs.depth }).from(fileBlobs).where(eq(fileBlobs.hash, blob.hash)).limit(1)
  if (stored !== undefined) return
  const encoded = encodeBlob(blob.bytes)
  await db
    .insert(fileBlobs)
    .values({ hash: blob.hash, bytes: encoded.bytes, size: encoded.bytes.byteLength, encoding: encoded.encoding, base: encoded.base, depth: encoded.depth })
    .onConflictDoNothing({ target: fileBlobs.hash })
}

/**
 * Stores the write's blobs that are not stored yet and checks that every content its entry names is stored, in one
 * query for what is known and one insert (an edit is a few queries: each one is a round trip on the connection). The
 * version before, when given, is the base the version after may be a delta against.
 */
async function insertBlobs(db: Queryable, write: JournalWrite, known: KnownBlobs): Promise<void> {
  const { before, after, path } = write.entry
  const hashes = [...new Set([...write.blobs.map((blob) => blob.hash), ...[before, after].filter((hash): hash is string => hash !== null)])]
  if (hashes.length === 0) return
  const depths = new Map(
    (await db.select({ hash: fileBlobs.hash, depth: fileBlobs.depth }).from(fileBlobs).where(inArray(fileBlobs.hash, hashes))).map((row) => [
      row.hash,
      row.depth,
    ]),
  )
  const base = write.blobs.find((blob) => blob.hash === before)
  const rows: (typeof fileBlobs.$inferInsert)[] = []
  for (const blob of write.blobs) {
    if (depths.has(blob.hash)) continue
    const baseDepth = base === undefined || base === blob ? undefined : depths.get(base.hash)
    const stored = encodeBlob(blob.bytes, base === undefined || baseDepth === undefined ? undefined : { ...base, depth: baseDepth })
    rows.push({ hash: blob.hash, bytes: stored.bytes, size: stored.bytes.byteLength, encoding: stored.encoding, base: stored.base, depth: stored.depth })
    depths.set(blob.hash, stored.depth)
  }
  for (const hash of [before, after]) {
    if (hash !== null && !depths.has(hash)) throw new Error(`journal entry for ${path} names content ${hash}, which is neither given nor stored`)
  }
  if (rows.length > 0) await db.insert(fileBlobs).values(rows).onConflictDoNothing({ target: fileBlobs.hash })
  for (const [hash, depth] of depths) known.set(hash, depth)
}

/** A blob's content, its deltas applied (at most MAX_DEPTH reads). */
async function readContent(db: Queryable, hash: string): Promise<Uint8Array | undefined> {
  const chain: { bytes: Uint8Array; encoding: number }[] = []
  for (let at: string | null = hash; at !== null; ) {
    const [row]: { bytes: Uint8Array; encoding: number; base: string | null }[] = await db
      .select({ bytes: fileBlobs.bytes, encoding: fileBlobs.encoding, base: fileBlobs.base })
      .from(fileBlobs)
      .where(eq(fileBlobs.hash, at))
      .limit(1)
    if (row === undefined) return undefined
    chain.push(row)
    at = readsThroughBase(row.encoding) ? row.base : null
    // Depths are bounded when stored (a depth another process changed meanwhile may add a few): this only stops a loop.
    if (chain.length > 4 * MAX_DEPTH) throw new Error(`the journal's blob ${hash} is a chain of deltas longer than ${4 * MAX_DEPTH}`)
  }
  let content: Uint8Array | undefined
  for (const link of chain.reverse()) content = decodeBlob(link.bytes, link.encoding, content)
  return content
}

/**
 * Every entry of the given files with its `undoneBy` as it stands (journal.standing.ts), oldest first. What stands is
 * decided per file over all of its entries and reverts, whoever made them.
 */
async function entriesOf(db: Queryable, paths: readonly string[]): Promise<JournalEntry[]> {
  const entries: JournalEntry[] = []
  for (let at = 0; at < paths.length; at += SLICE) {
    const rows = await db
      .select()
      .from(fileJournal)
      .where(inArray(fileJournal.path, paths.slice(at, at + SLICE)))
      .orderBy(asc(fileJournal.id))
    const ids = rows.map((row) => row.id)
    const reverts: JournalRevert[] = []
    for (let from = 0; from < ids.length; from += SLICE) {
      const slice = ids.slice(from, from + SLICE)
      reverts.push(
        ...(await db
          .select({ reverter: fileReverts.reverterId, reverted: fileReverts.revertedId })
          .from(fileReverts)
          .where(inArray(fileReverts.revertedId, slice))),
      )
    }
    const byPath = new Map<string, JournalRow[]>()
    for (const row of rows) byPath.set(row.path, [...(byPath.get(row.path) ?? []), row])
    for (const own of byPath.values()) {
      const ownIds = new Set(own.map((row) => row.id))
      const undoneBy = undoneByOf(
        [...ownIds],
        reverts.filter((r) => ownIds.has(r.reverted)),
      )
      for (const row of own) entries.push(fromRow(row, undoneBy.get(row.id) ?? null))
    }
  }
  return entries.sort((a, b) => a.id - b.id)
}

/** The undo journal in SQLite over one StorageConnection (uses it, does not own it). */
export class SqliteJournalStore implements JournalStore {
  /** Blobs this store stored or found stored: an append naming only these takes two statements (journal.append.ts). */
  private readonly known = new KnownBlobs()

  constructor(private readonly connection: StorageConnection) {}

  async putBlob(blob: JournalBlob): Promise<void> {
    await this.connection.exclusive((db) => db.transaction((tx) => insertBlob(tx, blob), { behavior: "immediate" }))
  }

  async readBlob(hash: string): Promise<Uint8Array | undefined> {
    return this.connection.exclusive((db) => readContent(db, hash))
  }

  async retract(id: number): Promise<void> {
    this.known.clear()
    await this.connection.exclusive((db) => db.transaction((tx) => retractEntry(tx, id), { behavior: "immediate" }))
  }

  async append(writes: readonly JournalWrite[]): Promise<JournalEntry[]> {
    if (writes.length === 0) return []
    const [only] = writes
    if (writes.length === 1 && only !== undefined) {
      const alone = await this.connection.exclusive(() => appendAlone(this.connection.driver, only, this.known))
      if (alone !== undefined) return [alone]
    }
    return this.connection.exclusive((db) =>
      db.transaction(
        async (tx) => {
          const stored: JournalEntry[] = []
          for (const write of writes) {
            await insertBlobs(tx, write, this.known)
            const [row] = await tx
              .insert(fileJournal)
              .values({
                sessionId: write.entry.session,
                messageId: write.entry.message,
                turnId: write.entry.turn,
                tool: write.entry.tool,
                path: write.entry.path,
                beforeHash: write.entry.before,
                afterHash: write.entry.after,
                beforeMode: write.entry.beforeMode,
                afterMode: write.entry.afterMode,
                observed: write.entry.observed,
                at: write.entry.at,
              })
              .returning()
            if (row === undefined) throw new Error(`journal entry for ${write.entry.path} was not stored`)
            const reverts = [...new Set(write.reverts ?? [])]
            if (reverts.length > 0) {
              // Each must still stand: another process may have undone it (or pruned it) since the caller looked.
              const standing = new Map((await entriesOf(tx, [write.entry.path])).map((entry) => [entry.id, entry.undoneBy]))
              const gone = reverts.filter((id) => standing.get(id) !== null)
              if (gone.length > 0)
                throw new Error(
                  `the journal of ${write.entry.path} changed meanwhile: ${gone.length} of the entries to revert (${gone.join(", ")}) are undone or gone already`,
                )
            }
            const edges = [...new Set([...reverts, ...(write.covers ?? [])])].map((reverted) => ({ reverterId: row.id, revertedId: reverted }))
            for (let at = 0; at < edges.length; at += SLICE) await tx.insert(fileReverts).values(edges.slice(at, at + SLICE))
            stored.push(fromRow(row, null))
          }
          return stored
        },
        { behavior: "immediate" },
      ),
    )
  }

  async listByPath(path: string, options: JournalListOptions = {}): Promise<JournalEntry[]> {
    const excluded = new Set(options.excludeTools ?? [])
    const entries = await this.connection.exclusive((db) => entriesOf(db, [path]))
    const standing = entries.filter((entry) => entry.undoneBy === null && !excluded.has(entry.tool)).reverse()
    return options.limit === undefined ? standing : standing.slice(0, options.limit)
  }

  async listBySession(session: string, since: number): Promise<JournalEntry[]> {
    return this.connection.exclusive(async (db) => {
      const rows = await db
        .selectDistinct({ path: fileJournal.path })
        .from(fileJournal)
        .where(and(eq(fileJournal.sessionId, session), gte(fileJournal.at, since)))
      const entries = await entriesOf(
        db,
        rows.map((row) => row.path),
      )
      return entries.filter((entry) => entry.session === session && entry.at >= since)
    })
  }

  history(path: string): Promise<JournalEntry[]> {
    return this.connection.exclusive((db) => entriesOf(db, [path]))
  }

  async paths(folder: string, limit: number): Promise<string[]> {
    const prefix = folder.endsWith(sep) ? folder : folder + sep
    const rows = await this.connection.exclusive((db) =>
      db
        .select({ path: fileJournal.path, last: sql<number>`max(${fileJournal.id})`.as("last") })
        .from(fileJournal)
        // substr, not LIKE: a path may hold % or _.
        .where(sql`substr(${fileJournal.path}, 1, ${prefix.length}) = ${prefix}`)
        .groupBy(fileJournal.path)
        .orderBy(desc(sql`last`))
        .limit(limit),
    )
    return rows.map((row) => row.path)
  }

  blobBytes(): Promise<number> {
    return this.connection.exclusive((db) => totalBytes(db))
  }

  async turns(): Promise<JournalTurn[]> {
    // An entry outside any turn is a unit of its own: grouped by its id.
    const lone = sql`case when ${fileJournal.turnId} is null then ${fileJournal.id} end`
    const firstId = sql<number>`min(${fileJournal.id})`
    const rows = await this.connection.exclusive((db) =>
      db
        .select({
          session: fileJournal.sessionId,
          turn: fileJournal.turnId,
          firstId: firstId.as("first_id"),
          lastId: sql<number>`max(${fileJournal.id})`.as("last_id"),
          firstAt: sql<number>`min(${fileJournal.at})`.as("first_at"),
          lastAt: sql<number>`max(${fileJournal.at})`.as("last_at"),
          entries: sql<number>`count(*)`.as("entries"),
        })
        .from(fileJournal)
        .groupBy(fileJournal.sessionId, fileJournal.turnId, lone)
        .orderBy(firstId),
    )
    return rows.map((row) => ({
      session: row.session,
      turn: row.turn,
      firstId: Number(row.firstId),
      lastId: Number(row.lastId),
      firstAt: Number(row.firstAt),
      lastAt: Number(row.lastAt),
      entries: Number(row.entries),
    }))
  }

  prunedUntil(session: string): Promise<number | undefined> {
    return this.connection.exclusive((db) => prunedUntilIn(db, session))
  }

  async dropTurns(turns: readonly JournalTurn[]): Promise<JournalPruned> {
    this.known.clear()
    return this.connection.exclusive((db) => db.transaction((tx) => dropTurnsIn(tx, turns), { behavior: "immediate" }))
  }
}

/** The journal store of the workspace database, opened with it on first use. */
export function sharedJournalStore(connection: () => Promise<StorageConnection>): JournalStore {
  let store: Promise<SqliteJournalStore> | undefined
  const open = (): Promise<SqliteJournalStore> =>
    (store ??= connection()
      .then((c) => new SqliteJournalStore(c))
      .catch((error: unknown) => {
        store = undefined
        throw error
      }))
  return {
    putBlob: async (blob) => (await open()).putBlob(blob),
    readBlob: async (hash) => (await open()).readBlob(hash),
    retract: async (id) => (await open()).retract(id),
    append: async (writes) => (await open()).append(writes),
    listByPath: async (file, options) => (await open()).listByPath(file, options),
    listBySession: async (session, since) => (await open()).listBySession(session, since),
    history: async (file) => (await open()).history(file),
    paths: async (folder, limit) => (await open()).paths(folder, limit),
    blobBytes: async () => (await open()).blobBytes(),
    turns: async () => (await open()).turns(),
    dropTurns: async (turns) => (await open()).dropTurns(turns),
    prunedUntil: async (session) => (await open()).prunedUntil(session),
  }
}
