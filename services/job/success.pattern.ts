// forge_shell's success_pattern as the model writes it: a bare regular expression ("listening on \d+") or the
// /source/flags literal form ("/ready/i"). Read and checked here, at the boundary, so a bad pattern is refused before
// the permission dialog and before anything starts.

export interface SuccessPattern {
  /** As the model wrote it, for messages. */
  text: string
  source: string
  /** Always holds "m": output is scanned in steps, so ^ and $ can only mean line starts and ends. */
  flags: string
}

/** Flags that change what matches and nothing else (g, y and d change how a match is reported, which the scan owns). */
export const SUCCESS_PATTERN_FLAGS = ["i", "m", "s", "u"] as const

// The literal form: slash, a non-empty source, slash, letters only. "/api/v1" (a digit after the last slash) or
// "/health" (no closing slash) are not this form: they are bare patterns, taken as written.
const LITERAL_FORM = /^\/(.+)\/([A-Za-z]*)$/s

/** Reads a success_pattern, or throws an error that names it and says how to write it. */
export function parseSuccessPattern(text: string): SuccessPattern {
  const literal = LITERAL_FORM.exec(text)
  const source = literal ? (literal[1] as string) : text
  const given = literal ? (literal[2] as string) : ""
  const allowed: readonly string[] = SUCCESS_PATTERN_FLAGS
  for (const flag of given) {
    if (!allowed.includes(flag)) {
      throw new Error(
        `forge_shell: success_pattern ${JSON.stringify(text)}: flag "${flag}" is not supported; write /source/flags with flags from ` +
          `${SUCCESS_PATTERN_FLAGS.join(", ")} (e.g. "/ready/i"), or the bare regular expression without slashes (e.g. "ready").`,
      )
    }
  }
  const flags = [...new Set(`m${given}`)].join("")
  try {
    new RegExp(source, flags)
  } catch (error) {
    throw new Error(`forge_shell: success_pattern ${JSON.stringify(text)} is not a valid regular expression: ${(error as Error).message}`)
  }
  return { text, source, flags }
}
