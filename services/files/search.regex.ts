// forge_search's regex as the model writes it: bare ("useState\(") or the /source/flags literal form forge_shell's
// success_pattern takes ("/todo/i", services/job/success.pattern.ts). Not that parser itself: its errors name
// forge_shell, and it refuses any trailing letters that are no flag, while a search for an import path
// ("/src/components") is common here. So only a tail of known flags makes the literal form; anything else is a bare
// pattern, and every answer shows the regex as it was read.
//
// The regex runs on RE2 (re2js, plain JavaScript): matching takes time linear in the text whatever the pattern, so a
// pattern such as (a+)+$ costs what a plain one does, and no engine ever gives up on a line. The price is RE2's
// syntax: no lookaround and no backreferences; such a regex is refused, saying so.
import { RE2JS } from "re2js"
import { MAX_REGEX_CHARS } from "./search.limits"

export interface SearchRegex {
  /** As the model wrote it, for messages. */
  text: string
  /** The source and flags as read (g dropped), for the matcher to compile again where it runs. */
  source: string
  flags: string
  /** The compiled engine (multi-line: ^ and $ match at line ends, so a whole file is matched at once). */
  engine: RE2JS
  /** The regex as read, `/source/flags`, for the answer. */
  shown: string
}

/**
 * Flags of the literal form. Each line is tested on its own, so m and s change nothing and g is implied (every
 * matching line is reported); u and v change nothing on RE2, which reads Unicode always. They are accepted so a
 * habitual "/x/g" works. y and d are no flags here.
 */
export const SEARCH_REGEX_FLAGS = ["i", "m", "s", "u", "v", "g"] as const

const LITERAL_FORM = /^\/(.+)\/([a-z]*)$/s

/** A search regex as read, not yet compiled: what a scanner compiles where it runs (search.ports.ts ScanRequest). */
export type ReadRegex = Omit<SearchRegex, "engine">

/**
 * Reads a search regex without compiling it, or throws an error naming it (empty, too long). Compiling takes time that
 * grows with the pattern (a few hundred characters of nested repeats compile for a third of a second), so the plugin
 * compiles only in its search workers, and a compile error comes back from there.
 */
export function readSearchRegex(text: string): ReadRegex {
  if (text.length === 0) throw new Error('forge_search: regex is empty; give a regular expression (e.g. "useState\\(").')
  if (text.length > MAX_REGEX_CHARS) {
    throw new Error(`forge_search: regex is ${text.length.toLocaleString("en-US")} characters long; the limit is ${MAX_REGEX_CHARS.toLocaleString("en-US")}.`)
  }
  const { source, flags } = literalForm(text) ?? { source: text, flags: "" }
  return { text, source, flags, shown: `/${source}/${flags}` }
}

/** Reads and compiles a search regex, or throws an error that names it and carries the regex engine's own words. */
export function parseSearchRegex(text: string): SearchRegex {
  const read = readSearchRegex(text)
  return { ...read, engine: compileSearchRegex(read.source, read.flags, text) }
}

/** The RE2 engine of a regex read by parseSearchRegex (also where the matcher runs, in a worker). */
export function compileSearchRegex(source: string, flags: string, text = source): RE2JS {
  try {
    // translateRegExp reads JavaScript's own spellings RE2 lacks (\u00e4, (?<name>…), \/).
    return RE2JS.compile(RE2JS.translateRegExp(source), RE2JS.MULTILINE | (flags.includes("i") ? RE2JS.CASE_INSENSITIVE : 0))
  } catch (error) {
    // re2js writes the flags into the pattern it quotes ("`(?m)foo(`"): the model wrote no such prefix.
    const message = (error as Error).message.replace(/`\(\?[a-z]+\)/, "`")
    const unsupported = /\(\?[=!<]|invalid escape sequence: `\\[1-9k]|invalid named capture: `\(\?<[=!]/.test(message)
    throw new Error(
      `forge_search: regex ${JSON.stringify(text)} is not a valid regular expression (${message}); ` +
        (unsupported
          ? "the search engine is RE2, which matches in linear time and has no lookahead, lookbehind or backreferences: search for the plain part."
          : "escape special characters such as ( [ { . * + ? with \\ to match them literally."),
    )
  }
}

/** The /source/flags reading, when the tail after the last slash is known flags, each once; g is dropped. */
function literalForm(text: string): { source: string; flags: string } | undefined {
  const literal = LITERAL_FORM.exec(text)
  if (!literal) return undefined
  const given = literal[2] as string
  const known: readonly string[] = SEARCH_REGEX_FLAGS
  if ([...given].some((flag) => !known.includes(flag)) || new Set(given).size !== given.length) return undefined
  return { source: literal[1] as string, flags: given.replace("g", "") }
}
