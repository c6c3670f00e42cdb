// forge_search's scan as one worker thread runs it, synchronously (a blocking call blocks only that worker): walk the
// folder as search.files.ts does (.gitignore honoured, .git skipped, no symbolic link followed, file_pattern by the
// linear-time engine), read this worker's share of the files, skip binary and huge ones early, and match each
// file's whole text with RE2 (search.lines.ts). Every worker walks the same tree in the same order and takes the
// files whose place in the walk falls to it: no coordination, and the answer keeps the walk's order.
import { type Dirent, type Stats, closeSync, constants, fstatSync, openSync, readSync, readdirSync, statSync } from "node:fs"
import path from "node:path"
import { compileFilePattern } from "../../services/files/search.glob"
import { matchingLines } from "../../services/files/search.lines"
import type { ScanRequest, ScanResult, SearchSkipReason } from "../../services/files/search.ports"
import { compileSearchRegex } from "../../services/files/search.regex"
import { lineWindow, searchLines } from "../../services/files/search.tally"
import { GitignoreRules } from "./gitignore.rules"

export interface WalkScanRequest extends ScanRequest {
  maxFileBytes: number
  /** This worker's share: the files whose place in the walk is `index` modulo `count`. */
  share: { index: number; count: number }
  /** Wall-clock time (ms since the epoch) after which no file is tested; `limit` names it in the answer. */
  deadline: number
  limit: string
}

/** Bytes looked at for a NUL, git's and grep's test for a binary file. */
const BINARY_PROBE_BYTES = 8192

/** An entry to report: a file to read, or (no `file`) a folder that could not be listed. */
type Found = { order: number; path: string; file?: string }

export function scanTree(request: WalkScanRequest): ScanResult {
  const root = path.resolve(request.root)
  let info: Stats
  try {
    info = statSync(root)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new Error(`forge_search: cannot search ${request.root}: ${code === "ENOENT" ? "no such file or folder" : (error as Error).message}`)
  }
  const found: Found[] = []
  let walkedOut = false
  if (info.isDirectory()) {
    const wanted = request.filePattern === undefined ? undefined : compileFilePattern(request.filePattern)
    let listing: Dirent[]
    try {
      listing = readdirSync(root, { withFileTypes: true })
    } catch (error) {
      throw new Error(`forge_search: cannot list ${request.root}: ${(error as Error).message}`)
    }
    // An entry's place in the walk: every entry listed counts, ignored or not, so each worker knows the places
    // without testing the files that are not its own against .gitignore and file_pattern.
    let listed = 0
    const mine = (order: number): boolean => order % request.share.count === request.share.index
    const visit = (dir: string, rel: string, entries: Dirent[], inherited: GitignoreRules): void => {
      const rules = entries.some((e) => e.name === ".gitignore" && e.isFile()) ? inherited.within(dir, rel) : inherited
      // By name, in code-unit order: the same tree gives the same answer on every machine.
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        // A tree of millions of entries, or a file_pattern slow to match, meets the limit during the walk too.
        const order = listed++
        if (walkedOut || (order % 256 === 255 && Date.now() > request.deadline)) {
          walkedOut = true
          return
        }
        if (entry.name === ".git") continue
        const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`
        const child = `${dir}/${entry.name}`
        if (entry.isDirectory()) {
          if (rules.ignores(childRel, true)) continue
          let children: Dirent[] | undefined
          try {
            children = readdirSync(child, { withFileTypes: true })
          } catch {
            children = undefined
          }
          if (children) visit(child, childRel, children, rules)
          else if (mine(order)) found.push({ order, path: `${childRel}/` })
        } else if (mine(order) && entry.isFile() && !rules.ignores(childRel, false) && (wanted === undefined || wanted.matches(childRel))) {
          found.push({ order, path: childRel, file: child })
        }
      }
    }
    visit(root, "", listing, GitignoreRules.above(root))
    // Nobody knows how many files the rest of the walk held.
    if (walkedOut) return { searched: 0, files: [], skipped: [], undecided: { limit: request.limit } }
  } else if (info.isFile()) {
    // A file given by name is searched whatever .gitignore or file_pattern say.
    if (request.share.index === 0) found.push({ order: 0, path: path.basename(root), file: root })
  } else {
    throw new Error(`forge_search: cannot search ${request.root}: it is ${specialKind(info)}, not a file or a folder`)
  }
  return scanFound(request, found)
}

function scanFound(request: WalkScanRequest, found: readonly Found[]): ScanResult {
  const engine = compileSearchRegex(request.regex.source, request.regex.flags, request.regex.text)
  const result: ScanResult = { searched: 0, files: [], skipped: [] }
  const skip = (entry: Found, reason: SearchSkipReason, bytes?: number): void => {
    result.skipped.push({ order: entry.order, path: entry.path, reason, bytes })
  }
  let shownLeft = request.maxShown
  const probe = Buffer.allocUnsafe(64 * 1024)
  for (const [i, entry] of found.entries()) {
    if (entry.file === undefined) {
      skip(entry, "unreadable")
      continue
    }
    if (Date.now() > request.deadline) {
      result.undecided = { limit: request.limit, files: found.length - i, lines: 0 }
      return result
    }
    const read = readText(entry.file, request.maxFileBytes, probe)
    if (read.status !== "text") {
      skip(entry, read.reason, read.bytes)
      continue
    }
    if (Date.now() > request.deadline) {
      result.undecided = { limit: request.limit, files: found.length - i - 1, lines: searchLines(read.text).length }
      return result
    }
    result.searched++
    const hits = matchingLines(engine, read.text)
    if (hits.length === 0) continue
    const lines = shownLeft > 0 ? searchLines(read.text) : []
    const shown = hits.slice(0, Math.max(0, shownLeft)).map((hit) => ({
      line: hit.line,
      text: lineWindow(lines[hit.line] ?? "", hit.index, request.maxLineChars),
    }))
    shownLeft -= shown.length
    result.files.push({ order: entry.order, path: entry.path, matches: hits.length, shown })
  }
  return result
}

type Read = { status: "text"; text: string } | { status: "skipped"; reason: SearchSkipReason; bytes?: number }

/** The file as text (UTF-8, a BOM dropped, invalid bytes as U+FFFD), or why it is skipped. */
function readText(file: string, maxBytes: number, probe: Buffer): Read {
  let fd: number | undefined
  try {
    // Non-blocking: a FIFO that took a file's place since the listing would block the open until a writer came.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
    // Most files fit the reused buffer: one read, no fstat. A file that fills it is stat-ed and read whole.
    let filled = readSync(fd, probe, 0, probe.length, 0)
    let buffer = probe
    if (filled === probe.length || filled > maxBytes) {
      const info = fstatSync(fd)
      if (!info.isFile()) return { status: "skipped", reason: "unreadable" }
      if (info.size > maxBytes) return { status: "skipped", reason: "too-large", bytes: info.size }
      // The size stat-ed: a file that grows meanwhile is read as it was, one that shrinks as it is.
      buffer = Buffer.allocUnsafe(info.size)
      filled = probe.copy(buffer, 0, 0, filled)
      while (filled < buffer.length) {
        const bytes = readSync(fd, buffer, filled, buffer.length - filled, filled)
        if (bytes === 0) break
        filled += bytes
      }
    }
    if (buffer.subarray(0, Math.min(filled, BINARY_PROBE_BYTES)).includes(0)) return { status: "skipped", reason: "binary", bytes: filled }
    const text = buffer.toString("utf8", 0, filled)
    return { status: "text", text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text }
  } catch {
    return { status: "skipped", reason: "unreadable" }
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd)
      } catch {}
    }
  }
}

/** What a path that is neither a file nor a folder is, for the refusal. */
function specialKind(info: Stats): string {
  if (info.isFIFO()) return "a FIFO (named pipe)"
  if (info.isSocket()) return "a socket"
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device"
  return "no regular file"
}
