// What can be told about a database file before and right after SQLite opens it: SQLite recovers some damage
// silently (a lost write-ahead log, a truncated file), so Forge reads the signs itself and says what it found.
import { open, stat } from "node:fs/promises"
import path from "node:path"
import type { SqliteDriver } from "./sqlite.driver"

/** Something found at open that the user should hear of; `suspect` asks for SQLite's quick_check. */
export interface HealthNote {
  level: "info" | "warn"
  text: string
}

export interface FileSignals {
  /** Why the file cannot be a usable database at all (then it is not opened), and the path in the way. */
  fatal?: { text: string; path: string }
  notes: HealthNote[]
  /** A sign of damage: run quick_check even on a large file. */
  suspect: boolean
  /** Size of the database file in bytes (0 when it does not exist yet). */
  size: number
}

const HEADER = Buffer.from("SQLite format 3\0", "latin1")
/**
 * quick_check reads every page: about 2.5 ms per MiB on the 2-core machine (npm run bench:db). A normal Forge database
 * stays far below this bound; above it the check runs only when a sign of damage was found.
 */
export const QUICK_CHECK_MAX_BYTES = 16 * 1024 * 1024

/** Reads the file's situation, its header and its -wal/-shm companions. Never throws. */
export async function inspectDatabaseFiles(file: string): Promise<FileSignals> {
  const signals: FileSignals = { notes: [], suspect: false, size: 0 }
  const folder = path.dirname(file)
  const folderStat = await stat(folder).catch(() => undefined)
  if (folderStat !== undefined && !folderStat.isDirectory()) {
    return { ...signals, fatal: { text: `${folder} is a file, not a folder, so the database inside it cannot exist`, path: folder } }
  }
  const fileStat = await stat(file).catch(() => undefined)
  if (fileStat === undefined) return signals
  if (!fileStat.isFile())
    return { ...signals, fatal: { text: `${file} is ${fileStat.isDirectory() ? "a folder" : "not a regular file"}, not a database file`, path: file } }
  signals.size = fileStat.size
  const wal = await stat(`${file}-wal`).catch(() => undefined)
  const shm = await stat(`${file}-shm`).catch(() => undefined)
  if (fileStat.size > 0) {
    const header = await readHeader(file)
    if (header === undefined) return { ...signals, fatal: { text: `${file} cannot be read`, path: file } }
    const problem = headerProblem(header, fileStat.size, file)
    if (problem?.fatal) return { ...signals, fatal: { text: problem.text, path: file } }
    if (problem) {
      signals.notes.push({ level: "warn", text: problem.text })
      signals.suspect = true
    }
  }
  if (wal !== undefined && wal.size > 0) {
    signals.notes.push({
      level: "info",
      text: `${path.basename(file)}-wal (${wal.size} bytes) was there at open: the last run did not close the database (or another opencode process has it open); SQLite replays its committed transactions`,
    })
  } else if (wal === undefined && shm !== undefined) {
    // A clean close removes both companions; the index without its log means the log was lost.
    signals.notes.push({
      level: "warn",
      text: `the write-ahead log ${path.basename(file)}-wal is missing while its index ${path.basename(file)}-shm is there: transactions committed after the last checkpoint are lost; SQLite opened the database without them (live plans missing from it are rebuilt from their documents)`,
    })
    signals.suspect = true
  }
  return signals
}

/** SQLite's quick_check (every page, no index cross-check); null when it says "ok", else what it found. */
export async function quickCheck(driver: SqliteDriver): Promise<string | null> {
  const rows = await driver.all("PRAGMA quick_check")
  const lines = rows.map((row) => String(row[0]))
  if (lines.length === 1 && lines[0] === "ok") return null
  const shown = lines.slice(0, 3).join("; ")
  return `SQLite's quick_check found damage: ${shown}${lines.length > 3 ? ` (and ${lines.length - 3} more)` : ""}`
}

async function readHeader(file: string): Promise<Buffer | undefined> {
  try {
    const handle = await open(file, "r")
    try {
      const buffer = Buffer.alloc(100)
      const { bytesRead } = await handle.read(buffer, 0, 100, 0)
      return buffer.subarray(0, bytesRead)
    } finally {
      await handle.close()
    }
  } catch {
    return undefined
  }
}

/** The database header (https://sqlite.org/fileformat.html#the_database_header) against the file's real size. */
function headerProblem(header: Buffer, size: number, file: string): { fatal: boolean; text: string } | undefined {
  if (header.length < 100) return { fatal: true, text: `${file} is ${size} bytes, shorter than a SQLite header: it is truncated or not a database` }
  if (!header.subarray(0, HEADER.length).equals(HEADER)) {
    return { fatal: true, text: `${file} does not start with the SQLite header: it is not a database, or its first bytes were overwritten` }
  }
  const rawPageSize = header.readUInt16BE(16)
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return { fatal: true, text: `${file} has a damaged header (page size ${rawPageSize})` }
  const changeCounter = header.readUInt32BE(24)
  const pages = header.readUInt32BE(28)
  const validFor = header.readUInt32BE(92)
  // The in-header size counts only when written by a SQLite that keeps it (change counter = version-valid-for).
  if (pages > 0 && changeCounter === validFor && size < pages * pageSize) {
    return {
      fatal: false,
      text: `${file} is truncated: its header says ${pages} pages of ${pageSize} bytes (${pages * pageSize} bytes), the file holds ${size}`,
    }
  }
  if (size % pageSize !== 0) return { fatal: false, text: `${file} is truncated: ${size} bytes is not a whole number of ${pageSize}-byte pages` }
  return undefined
}
