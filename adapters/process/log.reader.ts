// Reading a job's output from its log file without ever holding the whole log in memory: tails, increments from
// an offset, line pages over a bounded window, and a cheap size poll that tells when new output arrived.
import { statSync } from "node:fs"
import { open, stat } from "node:fs/promises"

export const DEFAULT_WINDOW_BYTES = 8 * 1024 * 1024
const SCAN_CHUNK_BYTES = 64 * 1024

async function withFile<T>(logFile: string, body: (file: Awaited<ReturnType<typeof open>>, size: number) => Promise<T>): Promise<T> {
  let file: Awaited<ReturnType<typeof open>>
  try {
    file = await open(logFile, "r")
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ENOENT") throw new Error(`job log ${logFile} does not exist`)
    throw new Error(`cannot read job log ${logFile}: ${(error as Error).message}`)
  }
  try {
    return await body(file, (await file.stat()).size)
  } finally {
    await file.close()
  }
}

async function readRange(file: Awaited<ReturnType<typeof open>>, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length)
  let filled = 0
  while (filled < length) {
    const { bytesRead } = await file.read(buffer, filled, length - filled, position + filled)
    if (bytesRead === 0) break
    filled += bytesRead
  }
  return buffer.subarray(0, filled)
}

/** Bytes at the end of `bytes` that start a UTF-8 character not complete yet. */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] as number
    if ((byte & 0xc0) === 0x80) continue
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
    return needed > back ? back : 0
  }
  return 0
}

/** The last `maxBytes` of the log, starting at a line start (or a character start when the window holds no newline). */
export async function readTail(logFile: string, maxBytes: number): Promise<string> {
  return withFile(logFile, async (file, size) => {
    const start = Math.max(0, size - Math.max(0, maxBytes))
    if (start === 0) return (await readRange(file, 0, size)).toString("utf8")
    // One byte more in front tells whether the window already starts at a line start.
    const withBefore = await readRange(file, start - 1, size - start + 1)
    let bytes = withBefore.subarray(1)
    if (withBefore[0] !== 0x0a) {
      const newline = bytes.indexOf(0x0a)
      if (newline >= 0 && newline < bytes.length - 1) bytes = bytes.subarray(newline + 1)
      else {
        let skip = 0
        while (skip < bytes.length && ((bytes[skip] as number) & 0xc0) === 0x80) skip++
        bytes = bytes.subarray(skip)
      }
    }
    return bytes.toString("utf8")
  })
}

export interface NewOutput {
  text: string
  /** Where the next read continues. */
  nextOffset: number
  /** The log's size when read. */
  size: number
  /** The log was shorter than `fromOffset` (replaced or truncated): the text starts over at 0. */
  restarted: boolean
}

/** Output appended since `fromOffset`, at most `maxBytes` of it, never ending inside a UTF-8 character. */
export async function readNew(logFile: string, fromOffset: number, maxBytes: number): Promise<NewOutput> {
  return withFile(logFile, async (file, size) => {
    const restarted = fromOffset > size
    const start = restarted ? 0 : Math.max(0, fromOffset)
    let bytes = await readRange(file, start, Math.min(Math.max(0, maxBytes), size - start))
    const cut = incompleteTail(bytes)
    // Hold back a split character for the next read, unless that is all there is and the log ends there.
    if (cut > 0 && (cut < bytes.length || start + bytes.length < size)) bytes = bytes.subarray(0, bytes.length - cut)
    return { text: bytes.toString("utf8"), nextOffset: start + bytes.length, size, restarted }
  })
}

export interface ReadLinesOptions {
  /** The first line to return, 0-based, counted from the start of the log. */
  offset?: number
  /** How many lines at most. */
  limit?: number
  /** At most this many bytes are returned in one page. */
  windowBytes?: number
}

export interface LinePage {
  lines: string[]
  /** The line number of lines[0]. */
  offset: number
  /** The line to ask for next, or null when the page reached the end of the log. */
  nextOffset: number | null
  /** A line longer than the window was cut to fit it. */
  truncated: boolean
}

/** A page of lines. Memory stays bounded by the window: the log is scanned in small chunks to find the first line. */
export async function readLines(logFile: string, options: ReadLinesOptions = {}): Promise<LinePage> {
  const offset = Math.max(0, Math.floor(options.offset ?? 0))
  const limit = Math.max(0, Math.floor(options.limit ?? 200))
  const windowBytes = Math.max(1, options.windowBytes ?? DEFAULT_WINDOW_BYTES)
  return withFile(logFile, async (file, size) => {
    // Find the byte where line `offset` starts.
    let position = 0
    let line = 0
    while (line < offset && position < size) {
      const chunk = await readRange(file, position, Math.min(SCAN_CHUNK_BYTES, size - position))
      if (chunk.length === 0) break
      let from = 0
      while (line < offset) {
        const newline = chunk.indexOf(0x0a, from)
        if (newline < 0) break
        line++
        from = newline + 1
      }
      position += line < offset ? chunk.length : from
    }
    if (line < offset || position >= size) return { lines: [], offset, nextOffset: null, truncated: false }

    const window = await readRange(file, position, Math.min(windowBytes, size - position))
    const lines: string[] = []
    let from = 0
    let truncated = false
    while (lines.length < limit && from < window.length) {
      const newline = window.indexOf(0x0a, from)
      if (newline < 0) {
        // The last line of the window: complete only when the log ends here.
        if (position + window.length < size) {
          if (lines.length === 0) {
            truncated = true
            lines.push(window.subarray(from, window.length - incompleteTail(window)).toString("utf8"))
          }
          break
        }
        lines.push(window.subarray(from).toString("utf8"))
        from = window.length
        break
      }
      lines.push(window.subarray(from, newline).toString("utf8"))
      from = newline + 1
    }
    const atEnd = !truncated && position + from >= size
    return { lines, offset, nextOffset: atEnd ? null : offset + lines.length, truncated }
  })
}

export interface WindowLinePage {
  lines: string[]
  /** The line number (0-based, within the window) of lines[0]. */
  offset: number
  /** How many lines the window holds. */
  total: number
  /** The log is larger than the window: its older lines are not in it. */
  truncated: boolean
}

/**
 * A page of lines from the last `windowBytes` of the log (starting at a line start), numbered within that window.
 * For paging that should show the most recent output of a huge log without scanning it from the start.
 */
export async function readWindowLines(logFile: string, options: ReadLinesOptions = {}): Promise<WindowLinePage> {
  const offset = Math.max(0, Math.floor(options.offset ?? 0))
  const limit = Math.max(0, Math.floor(options.limit ?? 200))
  const windowBytes = Math.max(1, options.windowBytes ?? DEFAULT_WINDOW_BYTES)
  const size = await logSize(logFile)
  const text = await readTail(logFile, windowBytes)
  const all = text.split("\n")
  // A final newline ends the last line; it does not start an empty one.
  if (all.at(-1) === "") all.pop()
  return { lines: all.slice(offset, offset + limit), offset, total: all.length, truncated: size > windowBytes }
}

/** The log's size in bytes; 0 when it does not exist (yet). */
export async function logSize(logFile: string): Promise<number> {
  try {
    return (await stat(logFile)).size
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0
    throw new Error(`cannot read job log ${logFile}: ${(error as Error).message}`)
  }
}

function sizeNow(logFile: string): number {
  try {
    return statSync(logFile).size
  } catch {
    return 0
  }
}

export interface GrowthWatch {
  /** Stops polling; no callback runs after it returns. */
  stop(): void
}

/**
 * Polls the log's size every `intervalMs` and calls `onGrowth(size, previousSize)` when it changed from the size at
 * the start (or `fromSize`). Cheap (one stat per tick), never overlapping, and it does not keep the host alive.
 */
export function watchGrowth(
  logFile: string,
  onGrowth: (size: number, previousSize: number) => void,
  options: { intervalMs?: number; fromSize?: number } = {},
): GrowthWatch {
  const intervalMs = Math.max(1, options.intervalMs ?? 250)
  let previous = options.fromSize ?? sizeNow(logFile)
  let stopped = false
  let busy = false
  const timer = setInterval(() => {
    if (busy || stopped) return
    busy = true
    stat(logFile)
      .then(
        (info) => info.size,
        // A log not there (yet, or any more) simply has not grown.
        () => undefined,
      )
      .then((size) => {
        busy = false
        if (stopped || size === undefined || size === previous) return
        const before = previous
        previous = size
        onGrowth(size, before)
      })
  }, intervalMs)
  timer.unref()
  return {
    stop() {
      stopped = true
      clearInterval(timer)
    },
  }
}
