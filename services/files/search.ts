// forge_search's policy: read the regex and file_pattern, have the scanner test every line of every file, keep the
// answer within its bounds and say what was cut, and what a limit left undecided. Nothing here touches the disk.
import { searchAnswerText } from "./search.answer"
import { readFilePattern } from "./search.glob"
import type { ScanUndecided, SearchScanner } from "./search.ports"
import { readSearchRegex } from "./search.regex"
import { SEARCH_BOUNDS, type SearchBounds, SearchTally } from "./search.tally"

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

/**
 * Runs a search. An invalid regex or file_pattern throws before any file is read, an error naming it. A scan that a
 * limit stopped is an error too, naming the limit and what it left undecided: never "No matches" or a partial list
 * shown as complete.
 */
export async function runSearch(scanner: SearchScanner, request: SearchRequest, bounds: SearchBounds = SEARCH_BOUNDS): Promise<SearchAnswer> {
  // Read, not compiled: the scanner compiles where it runs (the plugin's, in its workers).
  const regex = readSearchRegex(request.regex)
  // A blank file_pattern is a pattern left out, not one that matches nothing.
  const filePattern = request.filePattern?.trim() ? request.filePattern : undefined
  // Read here (linear, no engine) so a glob that is no glob, or too large, is refused before any worker starts.
  if (filePattern !== undefined) readFilePattern(filePattern)
  const result = await scanner.scan({
    root: request.path,
    filePattern,
    regex: { source: regex.source, flags: regex.flags, text: regex.text },
    maxShown: bounds.maxMatches,
    maxLineChars: bounds.maxLineChars,
  })
  const tally = new SearchTally(bounds)
  tally.searched = result.searched
  for (const skip of [...result.skipped].sort((a, b) => a.order - b.order)) tally.skip(skip.reason, { path: skip.path, bytes: skip.bytes })
  for (const file of [...result.files].sort((a, b) => a.order - b.order)) tally.add(file)
  if (result.undecided) throw new Error(undecidedText(regex.shown, request.path, result.undecided, tally))
  const text = searchAnswerText({ root: request.path, regex: regex.shown, filePattern }, tally)
  return { text, matches: tally.matches, files: tally.files, shown: tally.shown, searched: tally.searched }
}

function undecidedText(regex: string, root: string, undecided: ScanUndecided, tally: SearchTally): string {
  const n = (value: number, noun: string): string => `${value.toLocaleString("en-US")} ${noun}${value === 1 ? "" : "s"}`
  const found = tally.matches === 0 ? "no matching line in the files it finished" : `${n(tally.matches, "matching line")} in the files it finished`
  const left =
    undecided.lines === undefined || undecided.files === undefined
      ? "the lines it had not tested"
      : `${n(undecided.lines, "line")} (read, not yet tested) and the lines of ${n(undecided.files, "file")} not yet read`
  return (
    `forge_search: the search for ${regex} under ${root} hit ${undecided.limit} and could not decide for ${left}; ` +
    `it found ${found} (${n(tally.searched, "file")} searched). ` +
    "This is no complete answer: narrow the path or file_pattern, or simplify the regex."
  )
}
