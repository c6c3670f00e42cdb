// The journal's common append, one change of one file with no reverts (every forge_write, forge_patch, forge_remove,
// opencode edit and seen shell change), in two statements instead of a transaction's five: each statement round trip
// costs as much as the atomic write of the file itself. Both statements are conditional, so no transaction is needed
// for the journal to stay whole: the new blob is stored only while the blob it is a delta against is, and the entry
// only while every blob it names is. When a condition fails (another process pruned meanwhile) nothing dangles: a
// blob no entry names is pruned, and the caller takes the transaction's path instead.
import type { JournalEntry, JournalWrite } from "../../services/files/journal.ports"
import { encodeBlob } from "./journal.blobs"
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
 * Appends the write in two conditional statements when it can (a single change naming only blobs this process knows
 * stored, or new ones given with it); undefined when it cannot or a condition failed: the caller appends it in a
 * transaction then. Runs inside the connection's `exclusive`.
 */
export async function appendAlone(driver: SqliteDriver, write: JournalWrite, known: KnownBlobs): Promise<JournalEntry | undefined> {
  const { entry } = write
  if ((write.reverts?.length ?? 0) > 0 || (write.covers?.length ?? 0) > 0) return undefined
  if (entry.before !== null && known.get(entry.before) === undefined) return undefined
  let stored: number | undefined
  if (entry.after !== null && known.get(entry.after) === undefined) {
    const blob = write.blobs.find((b) => b.hash === entry.after)
    if (blob === undefined) return undefined
    const base = entry.before === null ? undefined : write.blobs.find((b) => b.hash === entry.before)
    const baseDepth = base === undefined ? undefined : known.get(base.hash)
    const encoded = encodeBlob(blob.bytes, base === undefined || baseDepth === undefined ? undefined : { ...base, depth: baseDepth })
    // A delta only while its base is stored.
    await driver.run(
      `INSERT OR IGNORE INTO file_blobs (hash, bytes, size, encoding, base, depth)
       SELECT ?, ?, ?, ?, ?, ? WHERE ? IS NULL OR EXISTS (SELECT 1 FROM file_blobs WHERE hash = ?)`,
      [blob.hash, encoded.bytes, encoded.bytes.byteLength, encoded.encoding, encoded.base, encoded.depth, encoded.base, encoded.base],
    )
    stored = encoded.depth
  }
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
  if (entry.after !== null && stored !== undefined) known.set(entry.after, stored)
  return { ...entry, id, undoneBy: null }
}
