// file_pattern read into RE2 (search.glob.ts): the glob language as picomatch read it before, matched in linear time,
// and the limits on what a pattern may expand to.
import { describe, expect, it } from "vitest"
import { compileFilePattern } from "../../../services/files/search.glob"

const PATHS = [".eslintrc.ts", "README.md", "a.ts", "docs/x.md", "src/b.ts", "src/deep/c.ts", "src/d.tsx", "src/a.test.ts", "log7.txt", "log12.txt"]
const kept = (pattern: string): string[] => PATHS.filter((p) => compileFilePattern(pattern).matches(p))

describe("file_pattern", () => {
  it("matches a pattern without a slash against the name at any depth, one with a slash against the path", () => {
    expect(kept("*.ts")).toEqual([".eslintrc.ts", "a.ts", "src/b.ts", "src/deep/c.ts", "src/a.test.ts"])
    expect(kept("src/*.ts")).toEqual(["src/b.ts", "src/a.test.ts"])
    expect(kept("./src/*.ts")).toEqual(["src/b.ts", "src/a.test.ts"])
    expect(kept("src/**/*.ts")).toEqual(["src/b.ts", "src/deep/c.ts", "src/a.test.ts"])
    expect(kept("**/*.ts")).toEqual([".eslintrc.ts", "a.ts", "src/b.ts", "src/deep/c.ts", "src/a.test.ts"])
    expect(kept("src/**")).toEqual(["src/b.ts", "src/deep/c.ts", "src/d.tsx", "src/a.test.ts"])
  })

  it("reads ?, [classes], {alternatives}, {ranges}, extglobs and escapes", () => {
    expect(kept("?.ts")).toEqual(["a.ts", "src/b.ts", "src/deep/c.ts"])
    expect(kept("[ab].ts")).toEqual(["a.ts", "src/b.ts"])
    expect(kept("[!ab].ts")).toEqual(["src/deep/c.ts"])
    expect(kept("*.{md,tsx}")).toEqual(["README.md", "docs/x.md", "src/d.tsx"])
    expect(kept("log{1..9}.txt")).toEqual(["log7.txt"])
    expect(kept("log{10..12}.txt")).toEqual(["log12.txt"])
    expect(kept("*.@(md|tsx)")).toEqual(["README.md", "docs/x.md", "src/d.tsx"])
    expect(kept("a.test\\.ts")).toEqual(["src/a.test.ts"])
    expect(kept("{a}.ts")).toEqual([])
    expect(kept("[.ts")).toEqual([])
  })

  it("excludes by a negated pattern, by name as by path", () => {
    expect(kept("!*.ts")).toEqual(["README.md", "docs/x.md", "src/d.tsx", "log7.txt", "log12.txt"])
    expect(kept("!src/**")).toEqual([".eslintrc.ts", "README.md", "a.ts", "docs/x.md", "log7.txt", "log12.txt"])
  })

  it("matches a catastrophic pattern in linear time", () => {
    const name = `${"a".repeat(5000)}.txt`
    expect(compileFilePattern(`${"{a,a}*".repeat(40)}b`).matches(name)).toBe(false)
    expect(compileFilePattern(`${"*a".repeat(40)}*.txt`).matches(name)).toBe(true)
  })

  it("refuses what it cannot read or what is too large, naming the limit", () => {
    expect(() => compileFilePattern("x".repeat(1001))).toThrow('forge_search: file_pattern "xxxxxxxx')
    expect(() => compileFilePattern("x".repeat(1001))).toThrow(/is 1,001 characters long; the limit is 1,000\.$/)
    expect(() => compileFilePattern("f{1..5000}")).toThrow(/the range \{1\.\.5000\} stands for 5,000 values; the limit is 1,000$/)
    expect(() => compileFilePattern(`${"{1..999}".repeat(30)}`)).toThrow(/expands to a regex of [\d,]+ characters; the limit is 100,000\. Use fewer/)
    expect(() => compileFilePattern("!(a).ts")).toThrow(/is not a valid glob: !\(…\) at character 1 is not supported; put ! at the pattern's start/)
    expect(() => compileFilePattern("@(a|b")).toThrow(/is not a valid glob: unclosed @\( at character 1/)
  })
})
