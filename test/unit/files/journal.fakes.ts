// In-memory fakes of the undo journal's ports, keeping the promises the SQLite store and the real files keep: blobs
// stored once, appends all or nothing, reverts of entries that no longer stand refused, atomic file writes.
import type {
  FileState,
  JournalBlob,
  JournalEntry,
  JournalFiles,
  JournalListOptions,
  JournalPruned,
  JournalStore,
  JournalTurn,
  JournalWrite,
} from "../../../services/files/journal.ports"
import { type JournalRevert, undoneByOf } from "../../../services/files/journal.standing"

const copy = (bytes: Uint8Array): Uint8Array => Uint8Array.from(bytes)

export class MemoryJournalStore implements JournalStore {
  readonly blobs = new Map<string, Uint8Array>()
  /** The stored entries (their `undoneBy` is computed on reading, as the SQLite store does: see `entries`). */
  private rows: JournalEntry[] = []
  reverts: JournalRevert[] = []
  /** Per session, the time of its newest dropped entry. */
  private readonly pruned = new Map<string, number>()
  /** How many blob writes actually stored bytes. */
  blobWrites = 0
  /** Set to make the next append fail (after its checks, before anything is kept). */
  failNextAppend: Error | undefined
  private nextId = 1

  async putBlob(blob: JournalBlob): Promise<void> {
    this.store(this.blobs, blob)
  }

  async retract(id: number): Promise<void> {
    const entry = this.rows.find((row) => row.id === id)
    this.rows = this.rows.filter((row) => row.id !== id)
    this.reverts = this.reverts.filter((revert) => revert.reverter !== id)
    for (const hash of [entry?.after, entry?.before]) {
      if (hash !== null && hash !== undefined && !this.rows.some((row) => row.before === hash || row.after === hash)) this.blobs.delete(hash)
    }
  }

  async readBlob(hash: string): Promise<Uint8Array | undefined> {
    const bytes = this.blobs.get(hash)
    return bytes === undefined ? undefined : copy(bytes)
  }

  async append(writes: readonly JournalWrite[]): Promise<JournalEntry[]> {
    // Work on copies and keep them only when every write succeeded: one transaction.
    const blobs = new Map(this.blobs)
    const entries = this.rows.map((entry) => ({ ...entry }))
    const reverts = [...this.reverts]
    let nextId = this.nextId
    const stored: JournalEntry[] = []
    for (const write of writes) {
      for (const blob of write.blobs) this.store(blobs, blob)
      for (const hash of [write.entry.before, write.entry.after]) {
        if (hash !== null && !blobs.has(hash)) throw new Error(`entry for ${write.entry.path} names unknown content ${hash}`)
      }
      const entry: JournalEntry = { ...write.entry, id: nextId++, undoneBy: null }
      const standing = standingIn(entries, reverts)
      for (const id of new Set(write.reverts ?? [])) {
        if (standing.get(id) !== null) throw new Error(`entry ${id} is undone or gone already`)
      }
      for (const id of new Set([...(write.reverts ?? []), ...(write.covers ?? [])])) reverts.push({ reverter: entry.id, reverted: id })
      entries.push(entry)
      stored.push({ ...entry })
    }
    if (this.failNextAppend !== undefined) {
      const error = this.failNextAppend
      this.failNextAppend = undefined
      throw error
    }
    this.blobs.clear()
    for (const [hash, bytes] of blobs) this.blobs.set(hash, bytes)
    this.rows = entries
    this.reverts = reverts
    this.nextId = nextId
    return stored
  }

  /** Every entry, oldest first, with its `undoneBy` as it stands now. */
  get entries(): JournalEntry[] {
    const undoneBy = standingIn(this.rows, this.reverts)
    return this.rows.map((entry) => ({ ...entry, undoneBy: undoneBy.get(entry.id) ?? null }))
  }

  async listByPath(path: string, options: JournalListOptions = {}): Promise<JournalEntry[]> {
    const excluded = new Set(options.excludeTools ?? [])
    const found = this.entries.filter((entry) => entry.path === path && entry.undoneBy === null && !excluded.has(entry.tool)).reverse()
    return options.limit === undefined ? found : found.slice(0, options.limit)
  }

  async listBySession(session: string, since: number): Promise<JournalEntry[]> {
    return this.entries.filter((entry) => entry.session === session && entry.at >= since)
  }

  async history(path: string): Promise<JournalEntry[]> {
    return this.entries.filter((entry) => entry.path === path)
  }

  async paths(folder: string, limit: number): Promise<string[]> {
    const prefix = folder.endsWith("/") ? folder : `${folder}/`
    const newest = new Map<string, number>()
    for (const entry of this.rows) if (entry.path.startsWith(prefix)) newest.set(entry.path, entry.id)
    return [...newest]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([path]) => path)
  }

  async blobBytes(): Promise<number> {
    return [...this.blobs.values()].reduce((sum, bytes) => sum + bytes.byteLength, 0)
  }

  async turns(): Promise<JournalTurn[]> {
    const turns = new Map<string, JournalTurn>()
    for (const entry of this.rows) {
      const key = entry.turn === null ? `#${entry.id}` : `${entry.session}\u0000${entry.turn}`
      const turn = turns.get(key)
      if (turn === undefined) {
        turns.set(key, { session: entry.session, turn: entry.turn, firstId: entry.id, lastId: entry.id, firstAt: entry.at, lastAt: entry.at, entries: 1 })
      } else {
        turn.lastId = entry.id
        turn.firstAt = Math.min(turn.firstAt, entry.at)
        turn.lastAt = Math.max(turn.lastAt, entry.at)
        turn.entries += 1
      }
    }
    return [...turns.values()]
  }

  async dropTurns(turns: readonly JournalTurn[]): Promise<JournalPruned> {
    const before = this.rows.length
    const inTurn = (entry: JournalEntry) =>
      turns.some((turn) => (turn.turn === null ? entry.id === turn.firstId && entry.turn === null : entry.session === turn.session && entry.turn === turn.turn))
    for (const entry of this.rows.filter(inTurn)) this.pruned.set(entry.session, Math.max(this.pruned.get(entry.session) ?? 0, entry.at))
    this.rows = this.rows.filter((entry) => !inTurn(entry))
    // A dropped entry's own reverts go with it; a dropped reverter's stay (what it took back stays taken back).
    const kept = new Set(this.rows.map((entry) => entry.id))
    this.reverts = this.reverts.filter((revert) => kept.has(revert.reverted))
    const named = new Set(this.rows.flatMap((entry) => [entry.before, entry.after]))
    let blobs = 0
    let freedBytes = 0
    for (const [hash, bytes] of [...this.blobs]) {
      if (named.has(hash)) continue
      this.blobs.delete(hash)
      blobs += 1
      freedBytes += bytes.byteLength
    }
    return { entries: before - this.rows.length, blobs, freedBytes, totalBytes: await this.blobBytes() }
  }

  async prunedUntil(session: string): Promise<number | undefined> {
    return this.pruned.get(session)
  }

  private store(blobs: Map<string, Uint8Array>, blob: JournalBlob): void {
    if (blobs.has(blob.hash)) return
    blobs.set(blob.hash, copy(blob.bytes))
    this.blobWrites += 1
  }
}

/** Per entry id, the standing reverter that keeps it undone: computed per file, as the SQLite store does. */
function standingIn(entries: readonly JournalEntry[], reverts: readonly JournalRevert[]): Map<number, number | null> {
  const byPath = new Map<string, number[]>()
  for (const entry of entries) byPath.set(entry.path, [...(byPath.get(entry.path) ?? []), entry.id])
  const undoneBy = new Map<number, number | null>()
  for (const ids of byPath.values()) {
    const own = new Set(ids)
    for (const [id, by] of undoneByOf(
      ids,
      reverts.filter((r) => own.has(r.reverted)),
    ))
      undoneBy.set(id, by)
  }
  return undoneBy
}

/** Files by absolute path, in memory; a write can be made to fail for chosen paths. */
export class MemoryFiles implements JournalFiles {
  readonly files = new Map<string, Uint8Array>()
  /** Modes given to writes (a regular file's default when none was). */
  readonly modes = new Map<string, number>()
  /** Paths whose next write or removal fails. */
  readonly failing = new Set<string>()

  async read(path: string): Promise<Uint8Array | undefined> {
    const bytes = this.files.get(path)
    return bytes === undefined ? undefined : copy(bytes)
  }

  async state(path: string): Promise<FileState | undefined> {
    const bytes = this.files.get(path)
    return bytes === undefined ? undefined : { bytes: copy(bytes), mode: this.modes.get(path) ?? 0o100644 }
  }

  async write(path: string, bytes: Uint8Array, mode?: number | null): Promise<void> {
    this.fail(path)
    this.files.set(path, copy(bytes))
    if (mode !== undefined && mode !== null) this.modes.set(path, mode)
    else if (!this.modes.has(path)) this.modes.set(path, 0o100644)
  }

  async remove(path: string): Promise<void> {
    this.fail(path)
    this.files.delete(path)
    this.modes.delete(path)
  }

  /** A plain copy of the tree, for comparisons. */
  tree(): Record<string, number[]> {
    return Object.fromEntries([...this.files].sort(([a], [b]) => a.localeCompare(b)).map(([path, bytes]) => [path, [...bytes]]))
  }

  private fail(path: string): void {
    if (!this.failing.delete(path)) return
    throw new Error(`EACCES: permission denied, open '${path}'`)
  }
}

/** A clock the test moves by hand; every reading advances it by 1 ms so entries never share a time. */
export class StepClock {
  constructor(public time = 1_000) {}

  now(): number {
    this.time += 1
    return this.time
  }
}
