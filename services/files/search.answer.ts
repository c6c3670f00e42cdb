// forge_search's answer text: a summary line, the shown lines grouped by file, then what was cut and what was not
// searched, so the model knows whether it saw everything and how to narrow the search.
import type { SearchTally, SkippedEntry } from "./search.tally"

export interface SearchHeading {
  /** The searched folder, as given. */
  root: string
  /** The regex as read (`/source/flags`). */
  regex: string
  filePattern?: string
}

/** Paths named per kind of skipped entry; the rest are counted. */
const NAMED_SKIPS = 5

export function searchAnswerText(heading: SearchHeading, tally: SearchTally): string {
  const scope = `${heading.regex} under ${heading.root}${heading.filePattern === undefined ? "" : ` (file_pattern ${JSON.stringify(heading.filePattern)})`}`
  const searched = `${count(tally.searched, "file")} searched`
  const parts: string[] = []
  if (tally.matches === 0) {
    const nothing = tally.searched === 0 && heading.filePattern !== undefined ? `; file_pattern ${JSON.stringify(heading.filePattern)} matched no file` : ""
    parts.push(`No matches for ${scope}; ${searched}${nothing}.`)
  } else {
    const shown = tally.hiddenMatches > 0 ? `, the first ${number(tally.shown)} shown` : ""
    parts.push(`${count(tally.matches, "matching line")} in ${count(tally.files, "file")} for ${scope}${shown}; ${searched}.`)
    for (const file of tally.shownFiles) parts.push([file.path, ...file.lines.map((line) => `${line.number}: ${line.text}`)].join("\n"))
  }
  if (tally.hiddenMatches > 0) {
    parts.push(
      `… ${number(tally.hiddenMatches)} more ${tally.hiddenMatches === 1 ? "match" : "matches"} in ${count(tally.hiddenFiles, "file")} not shown; ` +
        "narrow the regex or file_pattern",
    )
  }
  const skips = skipNote(tally)
  if (skips) parts.push(skips)
  return parts.join("\n\n")
}

function skipNote(tally: SearchTally): string | undefined {
  const { binary, "too-large": tooLarge, unreadable } = tally.skipped
  const notes: string[] = []
  if (binary.length > 0) notes.push(count(binary.length, "binary file"))
  if (tooLarge.length > 0) notes.push(`${count(tooLarge.length, "file")} too large to search (${named(tooLarge, true)})`)
  if (unreadable.length > 0) notes.push(`${number(unreadable.length)} unreadable (${named(unreadable, false)})`)
  return notes.length > 0 ? `Not searched: ${notes.join("; ")}.` : undefined
}

function named(entries: readonly SkippedEntry[], withSize: boolean): string {
  const names = entries.slice(0, NAMED_SKIPS).map((e) => (withSize && e.bytes !== undefined ? `${e.path}, ${megabytes(e.bytes)}` : e.path))
  const more = entries.length - names.length
  return more > 0 ? `${names.join("; ")} and ${number(more)} more` : names.join("; ")
}

const number = (n: number): string => n.toLocaleString("en-US")
const count = (n: number, noun: string): string => `${number(n)} ${noun}${n === 1 ? "" : "s"}`
const megabytes = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`
