// What the journal says about contents: their hashes and blobs, what a restore does, and how the disk differs from
// what Forge left there (for refusals).
import { createHash } from "node:crypto"
import { type FileState, type JournalBlob, isLinkMode } from "./journal.ports"

/** What putting a file back does to it. */
export type RestoreAction = "restored" | "removed" | "recreated"

/** sha256 of the content, hex; null for no file. */
export function hashOf(bytes: Uint8Array | undefined): string | null {
  return bytes === undefined ? null : createHash("sha256").update(bytes).digest("hex")
}

/** Files, and their bytes in all, whose last recorded content RecentContents keeps. */
const RECENT_FILES = 8
const RECENT_BYTES = 16 * 1024 * 1024

/**
 * The content last recorded for a few files, with its hash: a change that starts from it needs no hash of its version
 * before (comparing the bytes costs some fifty times less than sha256). The bytes are the caller's, never changed.
 */
export class RecentContents {
  private readonly byPath = new Map<string, { bytes: Uint8Array; hash: string }>()

  /** The hash of `bytes` (null for no file): what `path` last held when they are equal, else computed. */
  hash(path: string, bytes: Uint8Array | undefined): string | null {
    const last = bytes === undefined ? undefined : this.byPath.get(path)
    if (last !== undefined && bytes !== undefined && Buffer.compare(last.bytes, bytes) === 0) return last.hash
    return hashOf(bytes)
  }

  remember(path: string, bytes: Uint8Array | undefined, hash: string | null): void {
    this.byPath.delete(path)
    if (bytes === undefined || hash === null || bytes.byteLength > RECENT_BYTES) return
    this.byPath.set(path, { bytes, hash })
    let total = 0
    for (const kept of this.byPath.values()) total += kept.bytes.byteLength
    for (const [oldest, kept] of this.byPath) {
      if (this.byPath.size <= RECENT_FILES && total <= RECENT_BYTES) break
      this.byPath.delete(oldest)
      total -= kept.bytes.byteLength
    }
  }
}

/**
 * The hash a file state is journaled under: a regular file's is its content's; a link's is taken over its target with
 * a prefix, so a link and a file holding its target's text never pass for one another.
 */
export function stateHash(state: FileState | undefined): string | null {
  if (state === undefined) return null
  if (!isLinkMode(state.mode)) return hashOf(state.bytes)
  return createHash("sha256").update("symlink\0").update(state.bytes).digest("hex")
}

/** The blobs of some contents, each hash once (no file names no blob). */
export function blobsOf(...contents: readonly [Uint8Array | undefined, string | null][]): JournalBlob[] {
  const blobs = new Map<string, JournalBlob>()
  for (const [bytes, hash] of contents) if (bytes !== undefined && hash !== null) blobs.set(hash, { hash, bytes })
  return [...blobs.values()]
}

export function actionOf(current: string | null, target: string | null): RestoreAction {
  if (target === null) return "removed"
  return current === null ? "recreated" : "restored"
}

const sizeOf = (bytes: number): string => `${bytes} byte${bytes === 1 ? "" : "s"}`
export const when = (at: number): string => new Date(at).toISOString()
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** How the file on disk differs from what the journal says Forge left there. */
export function difference(disk: Uint8Array | FileState | undefined, expected: string | null): string {
  if (disk === undefined) return "it has been removed"
  if (!(disk instanceof Uint8Array)) {
    if (isLinkMode(disk.mode)) return `it is a symbolic link now (to ${Buffer.from(disk.bytes).toString("utf8")})`
    return difference(disk.bytes, expected)
  }
  if (expected === null) return `it was removed but exists again (${sizeOf(disk.byteLength)})`
  return `its content is not what Forge left there (now ${sizeOf(disk.byteLength)})`
}
