import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from "node:fs"
import path from "node:path"
import { sizeText } from "../../../services/files/file.kind"
import { countOf } from "../../../services/text/count.text"
import { isWithin } from "../../workspace/tool.paths"
import type { ScreenFields } from "../tool.screen"

// What a forge_write over an existing file shows on its line: what it replaces, in a collapsed diff (lines added and
// removed, counted as multisets: a moved line counts as neither). The line is drawn before the call runs, so the file
// is read at once: only a regular file inside the workspace, opened without blocking, and none larger than a limit.

/** A file larger than this is not read for a line: the line says its size instead. */
const READ_LIMIT = 1024 * 1024

export function writeCallFields(args: unknown, workspace: string): ScreenFields {
  const a = args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {}
  if (typeof a.path !== "string" || typeof a.content !== "string" || !path.isAbsolute(a.path)) return {}
  const before = readExisting(a.path, workspace)
  if (before === undefined) return {}
  const refused = a.overwrite === true ? "" : " (without overwrite the call is refused)"
  if (typeof before === "number") return { replaces: `a file of ${sizeText(before)}, too large to compare on this line${refused}` }
  const old = linesOf(before)
  const now = linesOf(a.content)
  if (before === a.content) return { replaces: `${countOf(old.length, "line")}, ${sizeText(Buffer.byteLength(before))}, with the same content${refused}` }
  const { added, removed } = lineChanges(old, now)
  return { replaces: `${countOf(old.length, "line")}, ${sizeText(Buffer.byteLength(before))}: +${added} −${removed} lines${refused}` }
}

/** The file's text, its size when it is too large to read here, or undefined (none, not regular, outside, unreadable). */
function readExisting(file: string, workspace: string): string | number | undefined {
  let fd: number | undefined
  try {
    const real = realpathSync(file)
    if (!isWithin(real, realpathSync(workspace))) return undefined
    // Non-blocking: a FIFO put where the file was is opened without waiting for a writer, then left unread.
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK)
    const stats = fstatSync(fd)
    if (!stats.isFile()) return undefined
    if (stats.size > READ_LIMIT) return stats.size
    const buffer = Buffer.alloc(stats.size)
    let read = 0
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read)
      if (n === 0) break
      read += n
    }
    return buffer.subarray(0, read).toString("utf8")
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

function linesOf(text: string): string[] {
  if (text === "") return []
  const lines = text.split("\n")
  return text.endsWith("\n") ? lines.slice(0, -1) : lines
}

/** Lines of `now` beyond their count in `old` (added), and of `old` beyond their count in `now` (removed): linear. */
function lineChanges(old: readonly string[], now: readonly string[]): { added: number; removed: number } {
  const counts = new Map<string, number>()
  for (const line of old) counts.set(line, (counts.get(line) ?? 0) + 1)
  let added = 0
  for (const line of now) {
    const left = counts.get(line) ?? 0
    if (left > 0) counts.set(line, left - 1)
    else added++
  }
  let removed = 0
  for (const left of counts.values()) removed += left
  return { added, removed }
}
