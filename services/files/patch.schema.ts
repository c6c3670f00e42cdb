import * as z from "zod"

// forge_patch's `patches`: exact-text operations. Shape only; what depends on the file (found, ambiguous,
// overlapping) is the engine's (patch.apply.ts), which re-checks everything here that it relies on.

/** Why an empty search is refused, shared with the engine: there is no text to stand beside, and an empty file has none. */
export const EMPTY_SEARCH_MESSAGE =
  "search is empty: a patch needs existing text to match (an empty search would mean 'anywhere'). To create a file, fill an empty one or rewrite one whole, use forge_write"

const search = z
  .string()
  .min(1, EMPTY_SEARCH_MESSAGE)
  .describe("Text to find, exactly as the file has it (whitespace included); LF line breaks also match CRLF ones")

const occurrence = z
  .number()
  .int()
  .min(1)
  .optional()
  .describe("Which match to use (1 = first, counted from the top of the file) when the text occurs more than once; required then")

const insertion = {
  search,
  content: z.string().min(1, "content is empty: nothing to insert"),
  occurrence,
}

export const patchSchema = z.discriminatedUnion("operation", [
  z.strictObject({ operation: z.literal("prepend"), ...insertion }).describe("Insert `content` immediately before the matched text"),
  z.strictObject({ operation: z.literal("append"), ...insertion }).describe("Insert `content` immediately after the matched text"),
  z
    .strictObject({
      operation: z.literal("replace"),
      search,
      content: z.string().describe("The new text; empty deletes the match"),
      occurrence,
    })
    .describe("Replace the matched text with `content`"),
  z
    .strictObject({
      operation: z.literal("swap"),
      search,
      with: z.string().min(1, "with is empty: a swap needs a second text to exchange with").describe("The second text, found like `search`"),
      occurrence,
      with_occurrence: occurrence.describe("Which match of `with` to use when it occurs more than once"),
    })
    .describe("Exchange the places of `search` and `with` (the two must not overlap)"),
])

export const patchListSchema = z
  .array(patchSchema)
  .min(1, "patches is empty: give at least one patch")
  .describe("Applied in order, each to the result of the previous; all or nothing")

export type Patch = z.infer<typeof patchSchema>
export type PatchOperation = Patch["operation"]
