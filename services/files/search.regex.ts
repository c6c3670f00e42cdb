// forge_search's regex as the model writes it: a bare JavaScript regular expression ("useState\(") or the
// /source/flags literal form forge_shell's success_pattern takes ("/todo/i", services/jobs/success.pattern.ts). Not
// that parser itself: its errors name forge_shell, and it refuses any trailing letters that are no flag, while a
// search for an import path ("/src/components") is common here. So only a tail of known flags makes the literal
// form; anything else is a bare pattern, and every answer shows the regex as it was read.

export interface SearchRegex {
  /** As the model wrote it, for messages. */
  text: string
  /** Tests one line (no g or y flag: test() keeps no state between lines). */
  regex: RegExp
  /** The regex as read, `/source/flags`, for the answer. */
  shown: string
}

/**
 * Flags of the literal form. Each line is tested on its own, so m and s change nothing and g is implied (every
 * matching line is reported); they are accepted so a habitual "/x/g" works. y and d are no flags here.
 */
export const SEARCH_REGEX_FLAGS = ["i", "m", "s", "u", "v", "g"] as const

const LITERAL_FORM = /^\/(.+)\/([a-z]*)$/s

/** Reads a search regex, or throws an error that names it and carries the regex engine's own words. */
export function parseSearchRegex(text: string): SearchRegex {
  if (text.length === 0) throw new Error('forge_search: regex is empty; give a JavaScript regular expression (e.g. "useState\\(").')
  const { source, flags } = literalForm(text) ?? { source: text, flags: "" }
  let regex: RegExp
  try {
    regex = new RegExp(source, flags)
  } catch (error) {
    throw new Error(
      `forge_search: regex ${JSON.stringify(text)} is not a valid JavaScript regular expression (${(error as Error).message}); ` +
        "escape special characters such as ( [ { . * + ? with \\ to match them literally.",
    )
  }
  return { text, regex, shown: `/${source}/${flags}` }
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
