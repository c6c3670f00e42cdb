import * as z from "zod"

// forge_patch's `patches`: exact-text operations. Shape only; what depends on the file (found, ambiguous,
// overlapping) is the engine's (patch.apply.ts), which re-checks everything here that it relies on.

/** Why an empty search is refused, shared with the engine: there is no text to stand beside, and an empty file has none. */
export const EMPTY_SEARCH_MESSAGE =
  "search is empty: a patch needs existing text to match (an empty search would mean 'anywhere'). To create a file, fill an empty one or rewrite one whole, use forge_write"

/**
 * Limits of one call, checked before anything is searched. A search is the text around one change (64 Ki characters
 * is some 1,500 lines); new text past 1 Mi characters is a file to write whole; matches are counted up to a thousand.
 * Each patch reads the whole text a few times, in linear time, on opencode's thread: `searchedChars` bounds the
 * patches times the text's length (3 patches on a 10 MiB file, 100 on one of 320 Ki characters).
 */
export const PATCH_LIMITS = { searchChars: 65_536, contentChars: 1_048_576, patches: 100, matches: 1000, searchedChars: 32 * 1024 * 1024 } as const

const count = (n: number): string => n.toLocaleString("en-US")

/** A string of at most `max` characters, the refusal naming the field, its length and the limit. */
const bounded = (field: string, max: number, advice: string) =>
  z.string().max(max, {
    error: (issue) => `${field} is ${count(typeof issue.input === "string" ? issue.input.length : 0)} characters, over the limit of ${count(max)}: ${advice}`,
  })

const SEARCH_ADVICE = "match a shorter text around the change"
const CONTENT_ADVICE = "write a file this large whole with forge_write"

const search = bounded("search", PATCH_LIMITS.searchChars, SEARCH_ADVICE)
  .min(1, EMPTY_SEARCH_MESSAGE)
  .describe("Text to find, exactly as the file has it (whitespace included); LF line breaks also match CRLF ones")

const occurrence = z
  .number()
  .int()
  .min(1)
  .max(PATCH_LIMITS.matches, `occurrence counts the first ${count(PATCH_LIMITS.matches)} matches at most`)
  .optional()
  .describe("Which match to use (1 = first, counted from the top of the file) when the text occurs more than once; required then")

const insertion = {
  search,
  content: bounded("content", PATCH_LIMITS.contentChars, CONTENT_ADVICE).min(1, "content is empty: nothing to insert"),
  occurrence,
}

export const patchSchema = z.discriminatedUnion("operation", [
  z.strictObject({ operation: z.literal("prepend"), ...insertion }).describe("Insert `content` immediately before the matched text"),
  z.strictObject({ operation: z.literal("append"), ...insertion }).describe("Insert `content` immediately after the matched text"),
  z
    .strictObject({
      operation: z.literal("replace"),
      search,
      content: bounded("content", PATCH_LIMITS.contentChars, CONTENT_ADVICE).describe("The new text; empty deletes the match"),
      occurrence,
    })
    .describe("Replace the matched text with `content`"),
  z
    .strictObject({
      operation: z.literal("swap"),
      search,
      with: bounded("with", PATCH_LIMITS.searchChars, SEARCH_ADVICE)
        .min(1, "with is empty: a swap needs a second text to exchange with")
        .describe("The second text, found like `search`"),
      occurrence,
      with_occurrence: occurrence.describe("Which match of `with` to use when it occurs more than once"),
    })
    .describe("Exchange the places of `search` and `with` (the two must not overlap)"),
])

export const patchListSchema = z
  .array(patchSchema)
  .min(1, "patches is empty: give at least one patch")
  .max(PATCH_LIMITS.patches, {
    error: (issue) =>
      `patches holds ${Array.isArray(issue.input) ? issue.input.length : "too many"} patches, over the limit of ${PATCH_LIMITS.patches} per call: split the change into several calls`,
  })
  .describe("Applied in order, each to the result of the previous; all or nothing")

export type Patch = z.infer<typeof patchSchema>
export type PatchOperation = Patch["operation"]
