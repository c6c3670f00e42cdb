import { execFileSync } from "node:child_process"
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { createSearchFiles } from "../../../adapters/workspace/search.files"
import { runSearch } from "../../../services/files/search"
import { entriesScanner } from "../../../services/files/search.scan"
import type { SearchScope } from "../../../services/files/search.ports"
import { tempDir } from "../../temp.dir"

// forge_search over a real tree: what git ignores is not searched (nested .gitignore files and negations included,
// and the repository's rules above the searched folder), file_pattern globs, binaries, links and large files.

/** coreutils' mkfifo: Node has no call that makes a FIFO. */
const MKFIFO = "mkfifo"

/** Writes `files` (relative path → text or bytes) under `root`. */
function tree(root: string, files: Record<string, string | Buffer>): string {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    writeFileSync(path.join(root, rel), content)
  }
  return root
}

/** The paths the walk hands over. */
async function listed(scope: SearchScope, maxFileBytes?: number): Promise<string[]> {
  const paths: string[] = []
  for await (const entry of createSearchFiles({ maxFileBytes }).entries(scope)) paths.push(entry.path)
  return paths
}

describe(".gitignore", () => {
  it("applies each .gitignore to its own subtree, the deepest verdict winning, and skips .git", async () => {
    const root = tree(tempDir("forge-search-"), {
      ".gitignore": "*.log\n!important.log\nbuild/\n/only-top.txt\n",
      "a.log": "x",
      "important.log": "x",
      "only-top.txt": "x",
      "build/out.js": "x",
      "src/build.js": "x",
      "src/only-top.txt": "x",
      "src/.gitignore": "!keep.log\nlocal.txt\n",
      "src/keep.log": "x",
      "src/other.log": "x",
      "src/local.txt": "x",
      "src/deep/local.txt": "x",
      "other/local.txt": "x",
      ".git/config": "x",
      ".github/ci.yml": "x",
    })
    expect(await listed({ root })).toEqual([
      ".github/ci.yml",
      ".gitignore",
      "important.log",
      "other/local.txt",
      "src/.gitignore",
      "src/build.js",
      "src/keep.log",
      "src/only-top.txt",
    ])
  })

  it("re-includes a folder a deeper .gitignore un-ignores, with its files, as git does", async () => {
    const root = tree(tempDir("forge-search-"), {
      ".gitignore": "build/\n",
      "build/y.txt": "x",
      "sub/.gitignore": "!build/\n",
      "sub/build/x.txt": "x",
    })
    expect(await listed({ root })).toEqual([".gitignore", "sub/.gitignore", "sub/build/x.txt"])
  })

  it("matches case-sensitively, as git does on Linux", async () => {
    const root = tree(tempDir("forge-search-"), { ".gitignore": "*.LOG\n", "a.log": "x", "B.LOG": "x" })
    expect(await listed({ root })).toEqual([".gitignore", "a.log"])
  })

  it("applies the repository's rules above the searched folder (.gitignore files and .git/info/exclude)", async () => {
    const repo = tree(tempDir("forge-search-"), {
      ".git/info/exclude": "secret.txt\n",
      ".gitignore": "dist/\n*.tmp\n/pkg/top-only.txt\n",
      "pkg/.gitignore": "generated/\n",
      "pkg/lib/a.ts": "x",
      "pkg/lib/a.tmp": "x",
      "pkg/lib/dist/b.js": "x",
      "pkg/lib/generated/c.ts": "x",
      "pkg/lib/secret.txt": "x",
      "pkg/lib/top-only.txt": "x",
      "pkg/top-only.txt": "x",
    })
    expect(await listed({ root: path.join(repo, "pkg", "lib") })).toEqual(["a.ts", "top-only.txt"])
    expect(await listed({ root: path.join(repo, "pkg") })).toEqual([".gitignore", "lib/a.ts", "lib/top-only.txt"])
  })

  it("searches a folder the repository ignores when it is the one asked for", async () => {
    const repo = tree(tempDir("forge-search-"), { ".git/HEAD": "x", ".gitignore": "node_modules/\n", "node_modules/pkg/index.js": "x" })
    expect(await listed({ root: path.join(repo, "node_modules", "pkg") })).toEqual(["index.js"])
    expect(await listed({ root: repo })).toEqual([".gitignore"])
  })
})

describe("file_pattern", () => {
  const files = { "a.ts": "x", "src/b.ts": "x", "src/deep/c.ts": "x", "src/d.tsx": "x", ".eslintrc.ts": "x", "README.md": "x", "docs/x.md": "x" }

  it("matches a pattern without a slash against the file name at any depth", async () => {
    const root = tree(tempDir("forge-search-"), files)
    expect(await listed({ root, filePattern: "*.ts" })).toEqual([".eslintrc.ts", "a.ts", "src/b.ts", "src/deep/c.ts"])
    expect(await listed({ root, filePattern: "*.{md,tsx}" })).toEqual(["README.md", "docs/x.md", "src/d.tsx"])
  })

  it("matches a pattern with a slash against the path below the searched folder", async () => {
    const root = tree(tempDir("forge-search-"), files)
    expect(await listed({ root, filePattern: "src/**/*.ts" })).toEqual(["src/b.ts", "src/deep/c.ts"])
    expect(await listed({ root, filePattern: "./src/*.ts" })).toEqual(["src/b.ts"])
  })

  it("matches a globstar pattern at the folder's own level too", async () => {
    const root = tree(tempDir("forge-search-"), files)
    expect(await listed({ root, filePattern: "**/*.ts" })).toEqual([".eslintrc.ts", "a.ts", "src/b.ts", "src/deep/c.ts"])
  })

  it("excludes by a negated pattern at any depth, by name as by path", async () => {
    const root = tree(tempDir("forge-search-"), files)
    expect(await listed({ root, filePattern: "!*.ts" })).toEqual(["README.md", "docs/x.md", "src/d.tsx"])
    expect(await listed({ root, filePattern: "!src/**" })).toEqual([".eslintrc.ts", "README.md", "a.ts", "docs/x.md"])
  })
})

describe("what is not searched", () => {
  it("skips a file with a NUL byte in its first 8 KB as binary, and counts it", async () => {
    const root = tree(tempDir("forge-search-"), {
      "img.bin": Buffer.from([0x89, 0x50, 0x00, 0x66, 0x6f, 0x6f]),
      "late.txt": Buffer.concat([Buffer.from(`foo\n${"x".repeat(9000)}\n`), Buffer.from([0])]),
    })
    const answer = await runSearch(entriesScanner(createSearchFiles()), { path: root, regex: "foo" })
    expect(answer.text).toBe(`1 matching line in 1 file for /foo/ under ${root}; 1 file searched.\n\nlate.txt\n1: foo\n\nNot searched: 1 binary file.`)
  })

  it("follows no symbolic link: a link loop ends, a linked folder or file is not searched twice", async () => {
    const root = tree(tempDir("forge-search-"), { "real/a.txt": "foo" })
    symlinkSync("..", path.join(root, "real", "loop"))
    symlinkSync(path.join(root, "real"), path.join(root, "alias"))
    symlinkSync(path.join(root, "real", "a.txt"), path.join(root, "link.txt"))
    expect(await listed({ root })).toEqual(["real/a.txt"])
  })

  it("does not block on a FIFO", async () => {
    const root = tree(tempDir("forge-search-"), { "a.txt": "foo" })
    execFileSync(MKFIFO, [path.join(root, "pipe")])
    expect(await listed({ root })).toEqual(["a.txt"])
  })

  it("does not block on a file that became a FIFO after the listing", async () => {
    const root = tree(tempDir("forge-search-"), { "a.txt": "foo" })
    const entries = createSearchFiles().entries({ root })[Symbol.asyncIterator]()
    const first = await entries.next()
    rmSync(path.join(root, "a.txt"))
    execFileSync(MKFIFO, [path.join(root, "a.txt")])
    expect(first.done).toBe(false)
    if (!first.done) expect(await first.value.read()).toEqual({ status: "skipped", reason: "unreadable" })
  })

  it("skips a file over the size limit, naming it and its size", async () => {
    const root = tree(tempDir("forge-search-"), { "big.log": "foo\n".repeat(1000), "small.txt": "foo" })
    const answer = await runSearch(entriesScanner(createSearchFiles({ maxFileBytes: 1000 })), { path: root, regex: "foo" })
    expect(answer.matches).toBe(1)
    expect(answer.text).toMatch(/Not searched: 1 file too large to search \(big\.log, 0\.0 MB\)\.$/)
  })
})

describe("the searched path", () => {
  it("refuses a path that does not exist, naming it", async () => {
    const root = tempDir("forge-search-")
    await expect(runSearch(entriesScanner(createSearchFiles()), { path: path.join(root, "nope"), regex: "x" })).rejects.toThrow(
      `forge_search: cannot search ${path.join(root, "nope")}: no such file or folder`,
    )
  })

  it("refuses a FIFO given by name instead of blocking on it, naming it", async () => {
    const root = tempDir("forge-search-")
    const pipe = path.join(root, "pipe")
    execFileSync(MKFIFO, [pipe])
    await expect(runSearch(entriesScanner(createSearchFiles()), { path: pipe, regex: "x" })).rejects.toThrow(
      `forge_search: cannot search ${pipe}: it is a FIFO (named pipe), not a file or a folder`,
    )
  })

  it("searches a file given by name alone, whatever .gitignore says", async () => {
    const root = tree(tempDir("forge-search-"), { ".gitignore": "*.log\n", "x.log": "a\nfoo\n" })
    const answer = await runSearch(entriesScanner(createSearchFiles()), { path: path.join(root, "x.log"), regex: "foo" })
    expect(answer.text).toContain("x.log\n2: foo")
  })
})

describe("lines", () => {
  it("numbers CRLF lines like LF ones and shows them without the CR", async () => {
    const root = tree(tempDir("forge-search-"), { "win.txt": "one\r\ntwo foo\r\nthree\r\n" })
    const answer = await runSearch(entriesScanner(createSearchFiles()), { path: root, regex: "foo$" })
    expect(answer.text).toContain("win.txt\n2: two foo")
  })

  // How fast is bench:tools's question (bench/tools.search.ts), measured against grep, not a timed test's.
  it("finds every match of a 20,000-line file, numbered by line", async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i} ${i % 1000 === 0 ? "needle" : "hay"} ${"x".repeat(60)}`)
    const root = tree(tempDir("forge-search-"), { "big.txt": lines.join("\n") })
    const answer = await runSearch(entriesScanner(createSearchFiles()), { path: root, regex: "needle" })
    expect(answer.matches).toBe(20)
    expect(answer.text).toContain("19001: line 19000 needle")
  })
})
