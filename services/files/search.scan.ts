// A scanner over the SearchFiles port, matching in the calling thread: for embedders and tests with their own file
// source. The engine is linear-time (search.regex.ts), so a pattern costs what its text does; the plugin still scans
// in worker threads (adapters/process/search.scanner.ts), because the text's size is the model's to choose too.
import { matchingLines } from "./search.lines"
import type { ScanRequest, ScanResult, SearchEntry, SearchFileRead, SearchFiles, SearchScanner } from "./search.ports"
import { compileSearchRegex } from "./search.regex"
import { lineWindow, searchLines } from "./search.tally"

/** Files read at once, in order: the walk and the reads overlap, the answer's order stays the walk's. */
const READ_AHEAD = 16

export function entriesScanner(files: SearchFiles): SearchScanner {
  return {
    async scan(request: ScanRequest): Promise<ScanResult> {
      const engine = compileSearchRegex(request.regex.source, request.regex.flags, request.regex.text)
      const result: ScanResult = { searched: 0, files: [], skipped: [] }
      let shownLeft = request.maxShown
      let order = 0
      const pending: Array<{ order: number; path: string; read: Promise<SearchFileRead> }> = []
      const settle = async (): Promise<void> => {
        const next = pending.shift()
        if (!next) return
        const read = await next.read
        if (read.status !== "text") {
          result.skipped.push({ order: next.order, path: next.path, reason: read.reason, bytes: read.bytes })
          return
        }
        result.searched++
        const hits = matchingLines(engine, read.text)
        if (hits.length === 0) return
        const lines = shownLeft > 0 ? searchLines(read.text) : []
        const shown = hits.slice(0, Math.max(0, shownLeft)).map((hit) => ({
          line: hit.line,
          text: lineWindow(lines[hit.line] ?? "", hit.index, request.maxLineChars),
        }))
        shownLeft -= shown.length
        result.files.push({ order: next.order, path: next.path, matches: hits.length, shown })
      }
      for await (const entry of files.entries({ root: request.root, filePattern: request.filePattern })) {
        pending.push({ order: order++, path: entry.path, read: safeRead(entry) })
        if (pending.length >= READ_AHEAD) await settle()
      }
      while (pending.length > 0) await settle()
      return result
    },
  }
}

/** A read that waits in the queue must not reject unobserved (Node ends the process on an unhandled rejection). */
function safeRead(entry: SearchEntry): Promise<SearchFileRead> {
  return entry.read().catch(() => ({ status: "skipped", reason: "unreadable" }))
}
