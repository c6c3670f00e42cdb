// forge_search's files on disk: a walk below one folder that skips what git ignores (.gitignore files at every
// level, see gitignore.rules.ts, and .git itself), keeps what file_pattern matches, and follows no symbolic link
// (a linked folder can loop or leave the workspace; a linked file is searched where it really lives, or not at all).
import { type Dirent, type Stats, close, constants, fstat, open, read } from "node:fs"
import { readdir, stat } from "node:fs/promises"
import path from "node:path"
import { promisify } from "node:util"
import { compileFilePattern } from "../../services/files/search.glob"
import type { SearchEntry, SearchFileRead, SearchFiles, SearchScope } from "../../services/files/search.ports"
import { GitignoreRules } from "./gitignore.rules"

export interface SearchFilesOptions {
  /** Larger files are skipped (and named in the answer): one log of gigabytes must not stall the search. */
  maxFileBytes?: number
}

export const MAX_SEARCH_FILE_BYTES = 10 * 1024 * 1024

/** Bytes looked at for a NUL, git's and grep's test for a binary file. */
const BINARY_PROBE_BYTES = 8192

export function createSearchFiles(options: SearchFilesOptions = {}): SearchFiles {
  const maxBytes = options.maxFileBytes ?? MAX_SEARCH_FILE_BYTES
  return {
    async *entries(scope: SearchScope): AsyncIterable<SearchEntry> {
      const root = path.resolve(scope.root)
      const info = await stat(root).catch((error: NodeJS.ErrnoException) => {
        throw new Error(`forge_search: cannot search ${scope.root}: ${error.code === "ENOENT" ? "no such file or folder" : error.message}`)
      })
      if (!info.isDirectory()) {
        if (!info.isFile()) throw new Error(`forge_search: cannot search ${scope.root}: it is ${specialKind(info)}, not a file or a folder`)
        // A file given by name is searched whatever .gitignore or file_pattern say.
        yield { path: path.basename(root), read: () => readText(root, maxBytes) }
        return
      }
      const wanted = fileMatcher(scope.filePattern)
      const rules = GitignoreRules.above(root)
      const listing = await readdir(root, { withFileTypes: true }).catch((error: Error) => {
        throw new Error(`forge_search: cannot list ${scope.root}: ${error.message}`)
      })
      yield* walk(root, "", listing, rules, wanted, maxBytes)
    },
  }
}

async function* walk(
  dir: string,
  rel: string,
  listing: Dirent[],
  inherited: GitignoreRules,
  wanted: (rel: string) => boolean,
  maxBytes: number,
): AsyncGenerator<SearchEntry> {
  const rules = listing.some((e) => e.name === ".gitignore" && e.isFile()) ? inherited.within(dir, rel) : inherited
  // By name, in code-unit order: the same tree gives the same answer on every machine.
  for (const entry of listing.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name === ".git") continue
    const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`
    const child = path.join(dir, entry.name)
    // Symbolic links, sockets, FIFOs (a read would block forever) and devices are not searched.
    if (entry.isDirectory()) {
      if (rules.ignores(childRel, true)) continue
      const children = await readdir(child, { withFileTypes: true }).catch(() => undefined)
      if (children) yield* walk(child, childRel, children, rules, wanted, maxBytes)
      else yield { path: `${childRel}/`, read: async () => ({ status: "skipped", reason: "unreadable" }) }
    } else if (entry.isFile() && !rules.ignores(childRel, false) && wanted(childRel)) {
      yield { path: childRel, read: () => readText(child, maxBytes) }
    }
  }
}

/** file_pattern (search.glob.ts: matched by the linear-time engine), or every file. */
function fileMatcher(pattern: string | undefined): (rel: string) => boolean {
  if (pattern === undefined) return () => true
  const glob = compileFilePattern(pattern)
  return (rel) => glob.matches(rel)
}

/** What a path that is neither a file nor a folder is, for the refusal. */
function specialKind(info: Stats): string {
  if (info.isFIFO()) return "a FIFO (named pipe)"
  if (info.isSocket()) return "a socket"
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device"
  return "no regular file"
}

// The callback API, promisified: a FileHandle costs a third more per file, which a 20,000-file tree adds up to seconds.
const openFile = promisify(open)
const statFile = promisify(fstat)
const readInto = promisify(read)
const closeFile = promisify(close)

/** The file as text (UTF-8, a BOM dropped, invalid bytes as U+FFFD), or why it is skipped. */
async function readText(file: string, maxBytes: number): Promise<SearchFileRead> {
  let fd: number | undefined
  try {
    // Non-blocking: a FIFO that took a file's place since the listing would block the open until a writer came.
    fd = await openFile(file, constants.O_RDONLY | constants.O_NONBLOCK)
    const info = await statFile(fd)
    if (!info.isFile()) return { status: "skipped", reason: "unreadable" }
    const { size } = info
    if (size > maxBytes) return { status: "skipped", reason: "too-large", bytes: size }
    // The size stat-ed: a file that grows meanwhile is read as it was, one that shrinks as it is.
    const buffer = Buffer.allocUnsafe(size)
    const bytes = buffer.subarray(0, size === 0 ? 0 : await readAll(fd, buffer))
    if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) return { status: "skipped", reason: "binary", bytes: bytes.length }
    return { status: "text", text: new TextDecoder("utf-8").decode(bytes) }
  } catch {
    return { status: "skipped", reason: "unreadable" }
  } finally {
    if (fd !== undefined) await closeFile(fd).catch(() => undefined)
  }
}

/** Fills `buffer` from the file's start, or up to its end; returns the bytes read. */
async function readAll(fd: number, buffer: Buffer): Promise<number> {
  let filled = 0
  while (filled < buffer.length) {
    const { bytesRead } = await readInto(fd, buffer, filled, buffer.length - filled, filled)
    if (bytesRead === 0) break
    filled += bytesRead
  }
  return filled
}
