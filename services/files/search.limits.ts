// How much of a search the model may ask for, in one place: the regex and glob readers enforce them, and
// forge_search's schema shows them to the model. Apart from the engine, so the schema loads without it at start.

/** Characters of a regex: a search pattern is a line at most; the engine's compile time grows with it. */
export const MAX_REGEX_CHARS = 10_000
/** Characters of file_pattern read; a glob is a few dozen. */
export const MAX_GLOB_CHARS = 1_000
