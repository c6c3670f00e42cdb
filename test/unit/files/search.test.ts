// forge_search's policy over an in-memory file set: how the regex is read, how the answer groups and bounds what
// it found, and the closing notes on what was cut and what was not searched.
import { describe, expect, it } from "vitest"
import { matchingLines } from "../../../services/files/search.lines"
import type { SearchFileRead, SearchFiles, SearchScanner, SearchScope } from "../../../services/files/search.ports"
import { runSearch as runScan } from "../../../services/files/search"
import { entriesScanner } from "../../../services/files/search.scan"
import { parseSearchRegex } from "../../../services/files/search.regex"

/** Files by path: a text, or a skip. Entries come in the given order, as the walk would hand them. */
function filesOf(files: Record<string, string | SearchFileRead>, seen: SearchScope[] = []): SearchFiles {
  return {
    async *entries(scope) {
      seen.push(scope)
      for (const [path, content] of Object.entries(files)) {
        yield { path, read: async () => (typeof content === "string" ? { status: "text", text: content } : content) }
      }
    },
  }
}

const runSearch = (files: SearchFiles, ...rest: Parameters<typeof runScan> extends [unknown, ...infer R] ? R : never) => runScan(entriesScanner(files), ...rest)

const search = (files: Record<string, string | SearchFileRead>, regex: string, bounds = { maxMatches: 200, maxLineChars: 300 }) =>
  runSearch(filesOf(files), { path: "/w", regex }, bounds)

describe("the regex", () => {
  it("takes a bare pattern as written, and the /source/flags form with flags i, m, s, u, v (g accepted, implied)", () => {
    expect(parseSearchRegex("use\\w+\\(").shown).toBe("/use\\w+\\(/")
    expect(parseSearchRegex("/todo/i").flags).toBe("i")
    expect(parseSearchRegex("/todo/gi").shown).toBe("/todo/i")
    expect(parseSearchRegex("/\\p{Lu}/u").engine.test("Ä")).toBe(true)
  })

  it("takes what only looks like the literal form (an import path) as a bare pattern", () => {
    expect(parseSearchRegex("/src/components").shown).toBe("//src/components/")
    expect(parseSearchRegex("/api/v1").engine.test("GET /api/v1")).toBe(true)
    expect(parseSearchRegex("/x/ii").shown).toBe("//x/ii/")
    expect(parseSearchRegex("/").shown).toBe("///")
  })

  it("refuses an invalid regex before any file is read, naming it with the engine's own words", async () => {
    let listed = false
    const files: SearchFiles = {
      // biome-ignore lint/correctness/useYield: listing is what must not happen
      async *entries() {
        listed = true
      },
    }
    await expect(runSearch(files, { path: "/w", regex: "foo(" })).rejects.toThrow(
      /^forge_search: regex "foo\(" is not a valid regular expression \(error parsing regexp: missing closing \): `foo\(`\); escape/,
    )
    await expect(runSearch(files, { path: "/w", regex: "/[z-a]/i" })).rejects.toThrow(
      /regex "\/\[z-a\]\/i" is not a valid .*invalid character class range: `z-a`/,
    )
    await expect(runSearch(files, { path: "/w", regex: "" })).rejects.toThrow("forge_search: regex is empty")
    expect(listed).toBe(false)
  })
})

describe("the answer", () => {
  it("groups matching lines by file, with 1-based line numbers, in the walk's order", async () => {
    const answer = await search({ "src/a.ts": "one\nfoo two\nthree foo\n", "b.txt": "nothing", "src/c.ts": "foo" }, "foo")
    expect(answer).toMatchObject({ matches: 3, files: 2, shown: 3, searched: 3 })
    expect(answer.text).toBe(
      ["3 matching lines in 2 files for /foo/ under /w; 3 files searched.", "src/a.ts\n2: foo two\n3: three foo", "src/c.ts\n1: foo"].join("\n\n"),
    )
  })

  it("reads CRLF and LF lines alike, and a final line end opens no empty line", async () => {
    const answer = await search({ "win.txt": "a\r\nfoo\r\n", "empty.txt": "" }, "^foo$|^$")
    expect(answer.text).toContain("win.txt\n2: foo")
    expect(answer.matches).toBe(1)
  })

  it("says plainly when nothing matched, and when file_pattern matched no file at all", async () => {
    expect((await search({ "a.txt": "x" }, "foo")).text).toBe("No matches for /foo/ under /w; 1 file searched.")
    const none = await runSearch(filesOf({}), { path: "/w", regex: "foo", filePattern: "*.tsx" })
    expect(none.text).toBe('No matches for /foo/ under /w (file_pattern "*.tsx"); 0 files searched; file_pattern "*.tsx" matched no file.')
  })

  it("hands file_pattern to the walk, and a blank one as none", async () => {
    const seen: SearchScope[] = []
    await runSearch(filesOf({}, seen), { path: "/w", regex: "x", filePattern: "*.ts" })
    await runSearch(filesOf({}, seen), { path: "/w", regex: "x", filePattern: "  " })
    expect(seen).toEqual([
      { root: "/w", filePattern: "*.ts" },
      { root: "/w", filePattern: undefined },
    ])
  })
})

describe("the bounds", () => {
  it("shows at most maxMatches lines and counts the rest, with the files they are in", async () => {
    const files: Record<string, string> = {}
    for (let f = 1; f <= 60; f++) files[`f${f}.txt`] = Array.from({ length: 30 }, (_, i) => `hit ${f}.${i}`).join("\n")
    const answer = await search(files, "hit", { maxMatches: 45, maxLineChars: 300 })
    expect(answer).toMatchObject({ matches: 1800, files: 60, shown: 45 })
    expect(answer.text.split("\n")[0]).toBe("1,800 matching lines in 60 files for /hit/ under /w, the first 45 shown; 60 files searched.")
    expect(answer.text).toContain("f2.txt\n1: hit 2.0")
    expect(answer.text).toContain("15: hit 2.14")
    expect(answer.text).not.toContain("hit 2.15")
    // f2.txt is cut short, so it counts among the files with lines not shown.
    expect(answer.text.endsWith("… 1,755 more matches in 59 files not shown; narrow the regex or file_pattern")).toBe(true)
  })

  it("says one more match in one file in the singular", async () => {
    const answer = await search({ "a.txt": "x\nx" }, "x", { maxMatches: 1, maxLineChars: 300 })
    expect(answer.text).toMatch(/… 1 more match in 1 file not shown; narrow the regex or file_pattern$/)
  })

  it("cuts a long line to a window around its first match, marked with …", async () => {
    const line = `${"a".repeat(5000)}NEEDLE${"b".repeat(5000)}`
    const answer = await search({ "min.js": line }, "NEEDLE", { maxMatches: 200, maxLineChars: 30 })
    expect(answer.text).toContain(`min.js\n1: …${"a".repeat(10)}NEEDLE${"b".repeat(14)}…`)
    const start = await search({ "min.js": `NEEDLE${"b".repeat(100)}` }, "NEEDLE", { maxMatches: 200, maxLineChars: 30 })
    expect(start.text).toContain(`1: NEEDLE${"b".repeat(24)}…`)
    const end = await search({ "min.js": `${"a".repeat(100)}NEEDLE` }, "NEEDLE", { maxMatches: 200, maxLineChars: 30 })
    expect(end.text).toContain(`1: …${"a".repeat(24)}NEEDLE\n`.trimEnd())
  })

  it("never cuts a character in half", async () => {
    const answer = await search({ "e.txt": `${"😀".repeat(50)}x${"😀".repeat(50)}` }, "x", { maxMatches: 200, maxLineChars: 11 })
    const shown = answer.text.split("\n").find((l) => l.startsWith("1: ")) as string
    expect(shown).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/)
    expect(shown).toContain("x")
  })

  it("names what it did not search: binaries counted, large and unreadable files named", async () => {
    const answer = await search(
      {
        "a.txt": "foo",
        "img.png": { status: "skipped", reason: "binary", bytes: 10 },
        "big.log": { status: "skipped", reason: "too-large", bytes: 12 * 1024 * 1024 },
        "secret/": { status: "skipped", reason: "unreadable" },
      },
      "foo",
    )
    expect(answer.searched).toBe(1)
    expect(answer.text.split("\n\n").at(-1)).toBe("Not searched: 1 binary file; 1 file too large to search (big.log, 12.0 MB); 1 unreadable (secret/).")
  })

  it("names the first five skipped files of a kind and counts the rest; a read that throws is unreadable", async () => {
    const files: Record<string, string | SearchFileRead> = {}
    for (let i = 1; i <= 7; i++) files[`u${i}`] = { status: "skipped", reason: "unreadable" }
    const answer = await runSearch(
      {
        async *entries() {
          yield* filesOf(files).entries({ root: "/w" })
          yield { path: "boom", read: () => Promise.reject(new Error("EIO")) }
        },
      },
      { path: "/w", regex: "x" },
    )
    expect(answer.text).toContain("Not searched: 8 unreadable (u1; u2; u3; u4; u5 and 3 more).")
  })
})

describe("the linear-time engine", () => {
  it("refuses lookaround and backreferences, saying the engine is RE2 and has none", async () => {
    for (const regex of ["foo(?=bar)", "(?<!x)y", "(a)\\1"]) {
      await expect(search({}, regex)).rejects.toThrow(
        /is not a valid regular expression \(.*\); the search engine is RE2, which matches in linear time and has no lookahead/,
      )
    }
  })

  it("reads JavaScript's own spellings: \\u escapes, named groups, \\/", async () => {
    const answer = await search({ "a.txt": "ä\nname: x\n/path/\n" }, "\\u00e4|(?<n>name):|\\/path\\/")
    expect(answer.matches).toBe(3)
  })

  it("finds each line's first match once, and never a match that runs past its line", () => {
    const lines = (regex: string, text: string) => matchingLines(parseSearchRegex(regex).engine, text)
    expect(lines("foo\\s+bar", "foo\nbar\nfoo  bar\n")).toEqual([{ line: 2, index: 0 }])
    expect(lines("[^x]+z", "ab\ncz\n")).toEqual([{ line: 1, index: 0 }])
    expect(lines("^$", "a\n\nb\n")).toEqual([{ line: 1, index: 0 }])
    expect(lines("^", "")).toEqual([])
    expect(lines("b$", "ab\r\nb\r\nc")).toEqual([
      { line: 0, index: 1 },
      { line: 1, index: 0 },
    ])
    expect(lines("o", "foo boo\nno\n")).toEqual([
      { line: 0, index: 1 },
      { line: 1, index: 1 },
    ])
  })

  it("answers a search a limit stopped with an error naming the limit and what is undecided, never No matches", async () => {
    const scanner: SearchScanner = {
      scan: async () => ({
        searched: 3,
        files: [{ order: 1, path: "a.ts", matches: 1, shown: [{ line: 0, text: "foo" }] }],
        skipped: [],
        undecided: { limit: "the search's time limit of 60 s", files: 4, lines: 120 },
      }),
    }
    await expect(runScan(scanner, { path: "/w", regex: "foo" })).rejects.toThrow(
      "forge_search: the search for /foo/ under /w hit the search's time limit of 60 s and could not decide for 120 lines (read, not yet tested) " +
        "and the lines of 4 files not yet read; it found 1 matching line in the files it finished (3 files searched). This is no complete answer: " +
        "narrow the path or file_pattern, or simplify the regex.",
    )
  })
})
