// The journal's common append, one change of one file with no reverts (every forge_write, forge_patch, forge_remove,
// opencode edit and seen shell change), without a transaction: BEGIN and COMMIT would be two more round trips on the
// connection (under Node, each a trip through the thread pool). The blobs go in first, then the entry. Every statement is conditional, so the journal
// stays whole: a blob is stored as a delta only while the blob it is a delta against is, and the entry only while
// every blob it names is. When a condition fails (another process pruned meanwhile) nothing dangles: a blob no entry
// names is pruned, and the caller takes the transaction's path instead.
import type { JournalBlob, JournalEntry, JournalWrite } from "../../services/files/journal.ports"
import { type StoredBlob, encodeBlobSoon } from "./journal.blobs"
import type { SqliteDriver } from "./sqlite.driver"

/** Blobs this process stored or found stored, by hash: their depth. Bounded, oldest forgotten first. */
export class KnownBlobs {
  private readonly depths = new Map<string, number>()

  constructor(private readonly limit = 4_096) {}

  get(hash: string): number | undefined {
    return this.depths.get(hash)
  }

  set(hash: string, depth: number): void {
    this.depths.delete(hash)
    this.depths.set(hash, depth)
    if (this.depths.size > this.limit) this.depths.delete(this.depths.keys().next().value as string)
  }

  clear(): void {
    this.depths.clear()
  }
}

/**
 * Stores the blobs the write's entry names that this process does not know stored: asks which are when the version
 * before is among them, then inserts each missing one it is given, the version before whole and the version after as
 * a delta against it where small (only while that base is stored). Returns false when a blob the entry names is
 * neither given nor stored.
 * Runs inside the connection's `exclusive`.
 */
async function storeBlobs(driver: SqliteDriver, write: JournalWrite, known: KnownBlobs): Promise<boolean> {
  const { before, after } = write.entry
  // The version before first: the one after may be a delta against it.
  const missing = [...new Set([before, after])].filter((hash): hash is string => hash !== null && known.get(hash) === undefined)
  if (missing.length === 0) return true
  // Only a version before that may have to be stored whole is worth a query: INSERT OR IGNORE skips a stored one.
  if (before !== null && missing.includes(before)) {
    const found = await driver.all(`SELECT hash, depth FROM file_blobs WHERE hash IN (${missing.map(() => "?").join(", ")})`, missing)
    for (const [hash, depth] of found) known.set(String(hash), Number(depth))
  }
  const blobs: JournalBlob[] = []
  for (const hash of missing) {
    const blob = write.blobs.find((given) => given.hash === hash)
    if (known.get(hash) !== undefined) continue
    if (blob === undefined) return false
    blobs.push(blob)
  }
  // Encoded side by side (a large one compressed in the thread pool); a version before stored now is stored whole.
  const base = before === null ? undefined : write.blobs.find((blob) => blob.hash === before)
  const baseDepth = base === undefined ? undefined : (known.get(base.hash) ?? (blobs.includes(base) ? 0 : undefined))
  const against = (blob: JournalBlob) => (blob === base || base === undefined || baseDepth === undefined ? undefined : { ...base, depth: baseDepth })
  const encoded = await Promise.all(blobs.map((blob) => encodeBlobSoon(blob.bytes, against(blob))))
  for (const [i, blob] of blobs.entries()) {
    const stored = encoded[i] as StoredBlob
    // A delta only while its base is stored.
    await driver.run(
      `INSERT OR IGNORE INTO file_blobs (hash, bytes, size, encoding, base, depth)
       SELECT ?, ?, ?, ?, ?, ? WHERE ? IS NULL OR EXISTS (SELECT 1 FROM file_blobs WHERE hash = ?)`,
      [blob.hash, stored.bytes, stored.bytes.byteLength, stored.encoding, stored.base, stored.depth, stored.base, stored.base],
    )
    known.set(blob.hash, stored.depth)
  }
  return true
}

/**
 * Appends the write without a transaction when it can (a single change with no reverts): its missing blobs first
 * (storeBlobs), then the entry, inserted only while every blob it names is stored. Undefined when it cannot or a
 * condition failed: the caller appends it in a transaction then. Runs inside the connection's `exclusive`.
 */
export async function appendAlone(driver: SqliteDriver, write: JournalWrite, known: KnownBlobs): Promise<JournalEntry | undefined> {
  const { entry } = write
  if ((write.reverts?.length ?? 0) > 0 || (write.covers?.length ?? 0) > 0) return undefined
  if (!(await storeBlobs(driver, write, known))) return undefined
  const rows = await driver.all(
    `INSERT INTO file_journal (session_id, message_id, turn_id, tool, path, before_hash, after_hash, before_mode, after_mode, observed, at)
     SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
     WHERE (? IS NULL OR EXISTS (SELECT 1 FROM file_blobs WHERE hash = ?)) AND (? IS NULL OR EXISTS (SELECT 1 FROM file_blobs WHERE hash = ?))
     RETURNING id`,
    [
      entry.session,
      entry.message,
      entry.turn,
      entry.tool,
      entry.path,
      entry.before,
      entry.after,
      entry.beforeMode,
      entry.afterMode,
      entry.observed ? 1 : 0,
      entry.at,
      entry.before,
      entry.before,
      entry.after,
      entry.after,
    ],
  )
  const id = rows[0]?.[0]
  if (typeof id !== "number") {
    // Something this process believed stored is gone: forget it all, and let the transaction decide.
    known.clear()
    return undefined
  }
  return { ...entry, id, undoneBy: null }
}
