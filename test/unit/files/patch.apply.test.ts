// forge_patch's text engine, one operation and one refusal at a time.

import { describe, expect, it } from "vitest"
import { type PatchResult, PatchError, applyPatches } from "../../../services/files/patch.apply"
import { type Patch, patchListSchema, patchSchema } from "../../../services/files/patch.schema"

/** The PatchError a call throws (the test fails when it succeeds or throws something else). */
function refusal(text: string, patches: readonly Patch[]): PatchError {
  try {
    applyPatches(text, patches)
  } catch (error) {
    if (error instanceof PatchError) return error
    throw error
  }
  throw new Error("expected a PatchError, the patches applied")
}

const apply = (text: string, ...patches: Patch[]): PatchResult => applyPatches(text, patches)

describe("operations", () => {
  const text = "alpha\nbeta\ngamma\n"

  it("prepend inserts the content right before the match", () => {
    expect(apply(text, { operation: "prepend", search: "beta", content: "new\n" })).toEqual({
      text: "alpha\nnew\nbeta\ngamma\n",
      changes: [{ index: 1, op: "prepend", line: 2 }],
    })
  })

  it("append inserts the content right after the match, where the change lands", () => {
    expect(apply(text, { operation: "append", search: "beta\n", content: "new\n" })).toEqual({
      text: "alpha\nbeta\nnew\ngamma\n",
      changes: [{ index: 1, op: "append", line: 3 }],
    })
    expect(apply(text, { operation: "append", search: "beta", content: "!" }).text).toBe("alpha\nbeta!\ngamma\n")
  })

  it("replace swaps the match for the content; empty content deletes it", () => {
    expect(apply(text, { operation: "replace", search: "beta", content: "BETA" }).text).toBe("alpha\nBETA\ngamma\n")
    expect(apply(text, { operation: "replace", search: "beta\n", content: "" })).toEqual({
      text: "alpha\ngamma\n",
      changes: [{ index: 1, op: "replace", line: 2 }],
    })
  })

  it("swap exchanges two texts of different lengths and reports both places", () => {
    expect(apply(text, { operation: "swap", search: "gamma", with: "alpha\nbeta" })).toEqual({
      text: "gamma\nalpha\nbeta\n",
      changes: [{ index: 1, op: "swap", line: 1, otherLine: 2 }],
    })
  })

  it("swap accepts two texts that touch", () => {
    expect(apply("ab", { operation: "swap", search: "a", with: "b" }).text).toBe("ba")
  })

  it("content containing the search text is inserted once, not re-matched", () => {
    expect(apply("x foo y", { operation: "replace", search: "foo", content: "foo foo" }).text).toBe("x foo foo y")
    expect(apply("foo", { operation: "prepend", search: "foo", content: "foo" }).text).toBe("foofoo")
  })
})

describe("several patches in one call", () => {
  it("apply in order, each to the result of the previous", () => {
    const result = apply(
      "one\ntwo\n",
      { operation: "append", search: "one\n", content: "inserted\n" },
      { operation: "replace", search: "inserted", content: "changed" },
    )
    expect(result.text).toBe("one\nchanged\ntwo\n")
    expect(result.changes).toEqual([
      { index: 1, op: "append", line: 2 },
      { index: 2, op: "replace", line: 2 },
    ])
  })

  it("report each change's line in the final text, after later patches moved it", () => {
    const result = apply("a\nb\nc\n", { operation: "replace", search: "c", content: "C" }, { operation: "prepend", search: "a", content: "0\n0\n" })
    expect(result.text).toBe("0\n0\na\nb\nC\n")
    expect(result.changes).toEqual([
      { index: 1, op: "replace", line: 5 },
      { index: 2, op: "prepend", line: 1 },
    ])
  })

  it("a later patch sees what an earlier one created: an inserted copy makes the search ambiguous", () => {
    const error = refusal("foo\n", [
      { operation: "append", search: "foo\n", content: "foo\n" },
      { operation: "replace", search: "foo", content: "bar" },
    ])
    expect(error.problems).toEqual([{ index: 2, message: expect.stringContaining('search "foo" occurs 2 times (lines 1, 2)') }])
  })

  it("a failing later patch applies nothing: the error lists it and no text is returned", () => {
    const text = "keep\nme\n"
    const error = refusal(text, [
      { operation: "replace", search: "keep", content: "changed" },
      { operation: "replace", search: "absent", content: "x" },
    ])
    expect(error.problems.map((p) => p.index)).toEqual([2])
    expect(error.message).toBe('1 of 2 patches failed, so none was applied and the text is unchanged:\n- patch 2: search "absent" was not found')
    expect(text).toBe("keep\nme\n")
  })

  it("list every failing patch, each checked against what the successful ones before it left", () => {
    const error = refusal("a b c", [
      { operation: "replace", search: "x", content: "1" },
      { operation: "replace", search: "a", content: "A" },
      { operation: "replace", search: "a", content: "again" },
      { operation: "replace", search: "y", content: "2" },
    ])
    expect(error.problems.map((p) => p.index)).toEqual([1, 3, 4])
    expect(error.problems[1]?.message).toContain("it was in the text before an earlier patch of this call changed it")
    expect(error.message).toMatch(/^3 of 4 patches failed.*\n- patch 1: .*\n- patch 3: .*\n- patch 4: /)
  })

  it("refuse an empty list", () => {
    expect(refusal("a", []).message).toContain("patches is empty")
  })
})

describe("ambiguous and missing texts", () => {
  const text = "let x = 1\nlet y = 2\nlet x = 1\n"

  it("refuse a text that occurs more than once, with the count and the lines", () => {
    const error = refusal(text, [{ operation: "replace", search: "let x = 1", content: "let x = 3" }])
    expect(error.problems).toEqual([{ index: 1, message: 'search "let x = 1" occurs 2 times (lines 1, 3): say which with occurrence (1 to 2)' }])
  })

  it("count overlapping matches: 'aa' in 'aaa' is ambiguous, not a first match", () => {
    expect(refusal("aaa", [{ operation: "replace", search: "aa", content: "b" }]).problems[0]?.message).toContain("occurs 2 times (line 1)")
    expect(apply("aaa", { operation: "replace", search: "aa", content: "b", occurrence: 2 }).text).toBe("ab")
  })

  it("apply the occurrence named, counted from the top", () => {
    expect(apply(text, { operation: "replace", search: "let x = 1", content: "let x = 3", occurrence: 2 })).toEqual({
      text: "let x = 1\nlet y = 2\nlet x = 3\n",
      changes: [{ index: 1, op: "replace", line: 3 }],
    })
  })

  it("refuse an occurrence out of range", () => {
    const error = refusal(text, [{ operation: "replace", search: "let x = 1", content: "z", occurrence: 3 }])
    expect(error.problems[0]?.message).toBe('occurrence 3 asked, but search "let x = 1" occurs 2 times (lines 1, 3)')
  })

  it("refuse a missing text, naming it shortened", () => {
    const long = `${"abcdefghij".repeat(10)}!`
    const message = refusal(text, [{ operation: "replace", search: long, content: "z" }]).problems[0]?.message
    expect(message).toBe(`search ${JSON.stringify(long.slice(0, 57))}… was not found`)
  })

  it("say when only whitespace or line endings differ, and still refuse", () => {
    const message = refusal("function f(a,  b) {\n\treturn a\n}\n", [{ operation: "replace", search: "function f(a, b) {\n  return a", content: "z" }])
      .problems[0]?.message
    expect(message).toContain("ignoring whitespace and line endings it would match once (line 1)")
    expect(message).toContain("patches match exactly")
  })

  it("refuse an empty search, in the schema and in the engine, pointing at forge_write", () => {
    const patch = { operation: "replace", search: "", content: "x" } as const
    expect(patchSchema.safeParse(patch).error?.issues[0]?.message).toContain("forge_write")
    expect(refusal("text", [patch]).problems[0]?.message).toContain("forge_write")
  })

  it("refuse any patch on an empty file, pointing at forge_write", () => {
    for (const operation of ["prepend", "append", "replace"] as const) {
      const message = refusal("", [{ operation, search: "x", content: "y" }]).problems[0]?.message
      expect(message).toBe('search "x" was not found: the file is empty, so there is no text to match. Write it with forge_write')
    }
  })

  it("refuse a patch that changes nothing", () => {
    expect(refusal("a b", [{ operation: "replace", search: "a", content: "a" }]).problems[0]?.message).toContain("would change nothing")
    expect(refusal("a b a", [{ operation: "swap", search: "a", with: "a", occurrence: 1, with_occurrence: 2 }]).problems[0]?.message).toContain(
      "would change nothing",
    )
  })

  it("refuse patches that together change nothing, the final line break included, instead of reporting a patch", () => {
    const undone = refusal("a b\n", [
      { operation: "replace", search: "a", content: "c" },
      { operation: "replace", search: "c", content: "a" },
    ])
    expect(undone.message).toMatch(/^the patches together leave the text exactly as it was, so nothing was written/)
    expect(refusal("a\nb", [{ operation: "append", search: "b", content: "\n" }]).message).toContain("to change only that, rewrite the file with forge_write")
  })

  it("never cut a character in two: half an emoji's surrogate pair is not found", () => {
    expect(refusal("x \u{1F600} y\n", [{ operation: "replace", search: "\ud83d", content: "Z" }]).problems[0]?.message).toContain("was not found")
    expect(apply("x \u{1F600} y\n", { operation: "replace", search: "\u{1F600}", content: "Z" }).text).toBe("x Z y\n")
  })
})

describe("swap", () => {
  it("refuse overlapping texts, naming both with their lines", () => {
    const message = refusal("one two three", [{ operation: "swap", search: "one two", with: "two three" }]).problems[0]?.message
    expect(message).toBe('search "one two" (line 1) and with "two three" (line 1) overlap: a swap needs two separate texts')
  })

  it("refuse a text inside the other", () => {
    expect(refusal("abc", [{ operation: "swap", search: "abc", with: "b" }]).problems[0]?.message).toContain("overlap")
  })

  it("name which text is ambiguous or missing, both at once", () => {
    const message = refusal("x y x", [{ operation: "swap", search: "x", with: "z" }]).problems[0]?.message
    expect(message).toBe('search "x" occurs 2 times (line 1): say which with occurrence (1 to 2); with "z" was not found')
    expect(refusal("x y y", [{ operation: "swap", search: "x", with: "y" }]).problems[0]?.message).toContain("say which with with_occurrence (1 to 2)")
  })

  it("use the occurrences named for each text", () => {
    expect(apply("a b a b", { operation: "swap", search: "a", occurrence: 2, with: "b", with_occurrence: 1 }).text).toBe("a a b b")
  })
})

describe("line endings", () => {
  it("match LF search text in a CRLF file and insert the content as CRLF", () => {
    const result = apply("one\r\ntwo\r\nthree\r\n", { operation: "append", search: "one\ntwo\n", content: "inserted\nlines\n" })
    expect(result.text).toBe("one\r\ntwo\r\ninserted\r\nlines\r\nthree\r\n")
    expect(result.changes).toEqual([{ index: 1, op: "append", line: 3 }])
  })

  it("write CRLF content into an LF file as LF", () => {
    expect(apply("a\nb\n", { operation: "replace", search: "a\r\n", content: "x\r\ny\r\n" }).text).toBe("x\ny\nb\n")
  })

  it("never split a CRLF pair", () => {
    expect(refusal("a\r\nb", [{ operation: "append", search: "a\r", content: "x" }]).problems[0]?.message).toContain("was not found")
  })

  it("keep a mixed file's lines as they are, give new text its more frequent ending, and match across both kinds", () => {
    const text = "a\r\nb\nc\r\nd\r\n"
    expect(apply(text, { operation: "prepend", search: "d", content: "new\n" }).text).toBe("a\r\nb\nc\r\nnew\r\nd\r\n")
    expect(apply(text, { operation: "replace", search: "a\nb\nc", content: "x" }).text).toBe("x\r\nd\r\n")
    expect(apply("a\nb\nc\r\n", { operation: "prepend", search: "c", content: "new\r\n" }).text).toBe("a\nb\nnew\nc\r\n")
  })

  it("move swapped texts as the file has them", () => {
    expect(apply("a\r\nb\nc", { operation: "swap", search: "a\nb", with: "c" }).text).toBe("c\na\r\nb")
  })

  it("take content as written in a file without line breaks", () => {
    expect(apply("one line", { operation: "append", search: "one", content: "\r\n" }).text).toBe("one\r\n line")
  })
})

describe("final newline", () => {
  it("stays missing: line breaks left at the very end are dropped", () => {
    const result = apply("first\nlast", { operation: "append", search: "last", content: "\nadded\n\n" })
    expect(result.text).toBe("first\nlast\nadded")
  })

  it("stays present: a replace that removed it gets it back, in the file's ending", () => {
    expect(apply("a\r\nb\r\n", { operation: "replace", search: "b\n", content: "c" }).text).toBe("a\r\nc\r\n")
  })

  it("an emptied file stays empty", () => {
    expect(apply("only\n", { operation: "replace", search: "only\n", content: "" }).text).toBe("")
  })
})

describe("input the schema would refuse", () => {
  it("the engine refuses it too, by index, naming the field", () => {
    const patches = [
      { operation: "replace", search: "a", content: "b", extra: true },
      { operation: "rename", search: "a" },
      { operation: "append", search: "a" },
    ]
    const error = refusal("a", patches as unknown as Patch[])
    expect(error.problems.map((p) => p.index)).toEqual([1, 2, 3])
    expect(error.problems[0]?.message).toContain('Unrecognized key: "extra"')
    expect(error.problems[1]?.message).toContain("operation: Invalid discriminator value")
    expect(error.problems[2]?.message).toContain("content")
  })

  it("the schema is strict and needs at least one patch", () => {
    expect(patchListSchema.safeParse([]).success).toBe(false)
    expect(patchSchema.safeParse({ operation: "swap", search: "a", with: "b", content: "c" }).success).toBe(false)
    expect(patchSchema.safeParse({ operation: "prepend", search: "a", content: "" }).success).toBe(false)
    expect(patchSchema.safeParse({ operation: "replace", search: "a", content: "", occurrence: 0 }).success).toBe(false)
    expect(patchSchema.safeParse({ operation: "swap", search: "a", with: "b", occurrence: 1, with_occurrence: 2 }).success).toBe(true)
  })
})

describe("hostile patches", () => {
  const mixed = "one\r\ntwo\nthree\r\n"

  it("refuse a search over the size limit before searching, naming the field, its size and the limit", () => {
    const huge = "x".repeat(10 * 1024 * 1024)
    for (const text of [mixed, "one\ntwo\n"]) {
      expect(refusal(text, [{ operation: "replace", search: huge, content: "y" }]).problems).toEqual([
        { index: 1, message: "search is 10,485,760 characters, over the limit of 65,536: match a shorter text around the change" },
      ])
    }
    expect(refusal(mixed, [{ operation: "swap", search: "one", with: huge }]).problems[0]?.message).toBe(
      "with is 10,485,760 characters, over the limit of 65,536: match a shorter text around the change",
    )
    expect(refusal(mixed, [{ operation: "replace", search: "one", content: "z".repeat(2 * 1024 * 1024) }]).problems[0]?.message).toBe(
      "content is 2,097,152 characters, over the limit of 1,048,576: write a file this large whole with forge_write",
    )
  })

  it("refuse more patches than a call may hold", () => {
    const many = Array.from({ length: 101 }, (): Patch => ({ operation: "replace", search: "one", content: "1" }))
    expect(() => applyPatches(mixed, many)).toThrow("patches holds 101 patches, over the limit of 100 per call")
  })

  it("match across both kinds of line break in a mixed text without a regular expression, however the search is built", () => {
    const search = "(two\n[three]*"
    const text = `a\r\n${search}\r\nb\n${search}\n`
    expect(apply(text, { operation: "replace", search: `${search}\n`, content: "X\n", occurrence: 2 }).text).toBe(`a\r\n${search}\r\nb\nX\n`)
    expect(refusal(text, [{ operation: "replace", search: "two\r", content: "2" }]).problems[0]?.message).toMatch(
      /^search "two\\r" was not found; ignoring whitespace/,
    )
  })

  it("count at most 1,000 matches of an ambiguous search, and say so", () => {
    const text = `${"a".repeat(200_000)}\r\n\n`
    expect(refusal(text, [{ operation: "replace", search: "aa", content: "b" }]).problems[0]?.message).toBe(
      'search "aa" occurs more than 1,000 times (line 1): say which with occurrence (1 to 1,000)',
    )
    expect(apply(text, { operation: "replace", search: "aa", content: "b", occurrence: 1000 }).text.slice(995, 1002)).toBe("aaaabaa")
  })

  it("hint at a whitespace-only difference in a large text without a regular expression", () => {
    const text = `${"word ".repeat(100_000)}\nlet  x =\t1\n`
    expect(refusal(text, [{ operation: "replace", search: "let x = 1", content: "y" }]).problems[0]?.message).toContain(
      "ignoring whitespace and line endings it would match once (line 2)",
    )
  })

  it("count every overlapping match of a long search that repeats itself, as with a short one", () => {
    const text = `x${"ab".repeat(300)}y\n`
    expect(refusal(text, [{ operation: "replace", search: "ab".repeat(20), content: "c" }]).problems[0]?.message).toMatch(/occurs 281 times/)
    expect(refusal(text, [{ operation: "replace", search: "ab".repeat(200), content: "c" }]).problems[0]?.message).toMatch(/occurs 101 times/)
    expect(apply(text, { operation: "replace", search: "ab".repeat(200), content: "c", occurrence: 101 }).text).toBe(`x${"ab".repeat(100)}cy\n`)
    const crlf = `${"a\r\n".repeat(40)}b\n`
    expect(refusal(crlf, [{ operation: "replace", search: "a\n".repeat(20), content: "c" }]).problems[0]?.message).toMatch(/occurs 21 times/)
  })

  it("refuse a call whose patches would search more of the text than a call may, before searching", () => {
    const text = "x".repeat(1024 * 1024)
    const patches = Array.from({ length: 33 }, (): Patch => ({ operation: "replace", search: "y", content: "z" }))
    expect(() => applyPatches(text, patches)).toThrow(
      "33 patches on a text of 1,048,576 characters would search 34,603,008 characters, over the limit of 33,554,432 per call (patches × text length): give at most 32 patches per call on this file",
    )
  })
})
