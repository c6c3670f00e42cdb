import { closeSync, constants, fstatSync, openSync, read, readSync, realpathSync, statSync } from "node:fs"
import { lstat, readlink, rm } from "node:fs/promises"
import { promisify } from "node:util"
import path from "node:path"
import type { PathStat, ToolFiles } from "../../services/files/file.ports"
import { type FileState, isLinkMode } from "../../services/files/journal.ports"
import { writeFileAtomic, writeLinkAtomic } from "./atomic.write"

// The forge file tools' files on disk: whole-file reads, atomic writes (temp file and rename), removals. Every path
// they are given is a real path (the tools resolved it, the journal recorded it); each call resolves it again at that
// moment and refuses one that now leads elsewhere (a folder on its way swapped for a link), so nothing is written,
// removed or restored outside the file that was meant.

/**
 * Throws when `file`'s folder is no longer its own real path. Synchronous: resolving a path reads only cached folder
 * entries, far cheaper than a trip through the thread pool, and it runs again between a temp file's write and its
 * rename, the last moment before the change.
 */
function requireReal(file: string): void {
  const folder = path.dirname(file)
  let real: string
  try {
    real = realpathSync(folder)
  } catch (error) {
    // A folder not there yet: its nearest existing ancestor must be its own real path (checked on the way up).
    if (!missing(error)) throw error
    const parent = path.dirname(folder)
    if (parent === folder) return
    requireReal(folder)
    return
  }
  if (real !== folder) throw movedError(file, path.join(real, path.basename(file)))
}

function movedError(file: string, real: string): Error {
  return new Error(`${file} now leads to ${real}: a folder on its way is a symbolic link now, so it is not the file Forge journaled; nothing was changed there`)
}

function missing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === "ENOENT" || code === "ENOTDIR"
}

/**
 * Files up to this size are read with synchronous calls: a few microseconds each from the page cache (1 MiB: under a
 * millisecond), where every trip through the thread pool costs 30-150 µs on a two-core machine, four of them per read.
 */
const READ_SYNC_BYTES = 1024 * 1024

const readAside = promisify(read)

/**
 * A file's bytes: open, fstat, reads of its size and one byte more (a read that stops short of it reached the end;
 * one that fills it means the file grew, and reading goes on), close. O_NONBLOCK: opening a FIFO does not wait for a
 * writer (a regular file ignores it).
 */
async function readWhole(file: string): Promise<Buffer> {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const { size } = fstatSync(fd)
    const small = size <= READ_SYNC_BYTES
    let bytes = Buffer.allocUnsafe(size + 1)
    let length = 0
    for (;;) {
      const want = bytes.length - length
      const got = small ? readSync(fd, bytes, length, want, length) : (await readAside(fd, bytes, length, want, length)).bytesRead
      length += got
      if (got === 0 || (length >= size && length < bytes.length)) return bytes.subarray(0, length)
      if (length === bytes.length) bytes = Buffer.concat([bytes, Buffer.allocUnsafe(bytes.length)])
    }
  } finally {
    closeSync(fd)
  }
}

export const fsToolFiles: ToolFiles = {
  async read(file) {
    requireReal(file)
    try {
      return await readWhole(file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
      throw error
    }
  },
  async state(file): Promise<FileState | undefined> {
    requireReal(file)
    try {
      const s = await lstat(file)
      if (s.isSymbolicLink()) return { bytes: Buffer.from(await readlink(file), "utf8"), mode: s.mode }
      if (s.isDirectory()) throw new Error(`EISDIR: ${file} is a folder, not a file`)
      if (!s.isFile()) throw new Error(`${file} is a special file (a device, a pipe or a socket), not a file`)
      return { bytes: await readWhole(file), mode: s.mode }
    } catch (error) {
      if (missing(error)) return undefined
      throw error
    }
  },
  async write(file, bytes, mode) {
    requireReal(file)
    if (mode !== undefined && mode !== null && isLinkMode(mode)) return writeLinkAtomic(file, Buffer.from(bytes).toString("utf8"), () => requireReal(file))
    await writeFileAtomic(file, bytes, () => requireReal(file), mode ?? undefined)
  },
  async remove(file) {
    requireReal(file)
    await rm(file, { force: true })
  },
  async stat(file): Promise<PathStat> {
    try {
      // Synchronous, as the path's resolution is: a lookup in cached inodes, far cheaper than a trip through the pool.
      const s = statSync(file)
      return s.isFile() ? { kind: "file", size: s.size, mode: s.mode } : { kind: s.isDirectory() ? "folder" : "other", size: 0, mode: 0 }
    } catch (error) {
      if (missing(error)) return { kind: "missing", size: 0, mode: 0 }
      throw error
    }
  },
  async signature(file) {
    try {
      const s = await lstat(file, { bigint: true })
      return `${s.mode}:${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.ino}`
    } catch (error) {
      if (missing(error)) return "missing"
      throw error
    }
  },
}
