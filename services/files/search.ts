// forge_search's policy: read the regex, test every line of every file the port hands over, keep the answer within
// its bounds and say what was cut. Nothing here touches the disk; adapters/workspace/search.files.ts does.
import { searchAnswerText } from "./search.answer"
import { inProcessLineMatcher } from "./search.matcher"
import type { LineMatcherFactory, SearchEntry, SearchFileRead, SearchFiles } from "./search.ports"
import { parseSearchRegex } from "./search.regex"
import { SEARCH_BOUNDS, type SearchBounds, SearchTally, searchLines } from "./search.tally"

export interface SearchRequest {
  /** The folder to search, absolute (a file is searched alone). */
  path: string
  regex: string
  filePattern?: string
}

export interface SearchAnswer {
  /** The model's text. */
  text: string
  /** Matching lines found, and the files they are in. */
  matches: number
  files: number
  /** Matching lines in the text. */
  shown: number
  /** Files read and tested. */
  searched: number
}

/** Files read at once, in order: the walk and the reads overlap, the answer's order stays the walk's. */
const READ_AHEAD = 16

/**
 * Runs a search; an invalid regex throws before any file is read, an error naming it. A file whose lines the matcher
 * cannot test within its budget stops the search there, and the answer says so.
 */
export async function runSearch(
  files: SearchFiles,
  request: SearchRequest,
  bounds: SearchBounds = SEARCH_BOUNDS,
  matcherFor: LineMatcherFactory = inProcessLineMatcher,
): Promise<SearchAnswer> {
  const { regex, shown } = parseSearchRegex(request.regex)
  // A blank file_pattern is a pattern left out, not one that matches nothing.
  const filePattern = request.filePattern?.trim() ? request.filePattern : undefined
  const tally = new SearchTally(bounds)
  const matcher = matcherFor({ source: regex.source, flags: regex.flags })
  let stopped: { path: string; budgetMs: number; scope: "file" | "search" } | undefined
  const pending: Array<{ path: string; read: Promise<SearchFileRead> }> = []
  const settle = async (): Promise<void> => {
    const next = pending.shift()
    if (!next || stopped) return
    const read = await next.read
    if (read.status !== "text") return tally.skip(read.reason, { path: next.path, bytes: read.bytes })
    const lines = searchLines(read.text)
    const result = await matcher.match(lines)
    if (result.status === "timed-out") stopped = { path: next.path, budgetMs: result.budgetMs, scope: result.scope }
    else tally.addFile(next.path, lines, result.hits)
  }
  try {
    for await (const entry of files.entries({ root: request.path, filePattern })) {
      if (stopped) break
      pending.push({ path: entry.path, read: safeRead(entry) })
      if (pending.length >= READ_AHEAD) await settle()
    }
    while (pending.length > 0) await settle()
  } finally {
    matcher.close()
  }
  const text = searchAnswerText({ root: request.path, regex: shown, filePattern }, tally)
  const note = stopped ? `\n${stoppedNote(stopped)}` : ""
  return { text: text + note, matches: tally.matches, files: tally.files, shown: tally.shown, searched: tally.searched }
}

function stoppedNote(stopped: { path: string; budgetMs: number; scope: "file" | "search" }): string {
  const seconds = stopped.budgetMs / 1000
  const why =
    stopped.scope === "file"
      ? `testing its lines took longer than ${seconds} s (a regex that backtracks without end?)`
      : `testing the files' lines took longer than ${seconds} s in all (a slow regex over many files?)`
  return `The search stopped at ${stopped.path}: ${why}; what is above comes from the files before it. Simplify the regex, or narrow the path or file_pattern.`
}

/** A read that waits in the queue must not reject unobserved (Node ends the process on an unhandled rejection). */
function safeRead(entry: SearchEntry): Promise<SearchFileRead> {
  return entry.read().catch(() => ({ status: "skipped", reason: "unreadable" }))
}
