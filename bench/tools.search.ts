// forge_search over a generated 20,000-file tree: runSearch with the plugin's own scanner (a pool of worker threads
// that walk with .gitignore honoured, read and match with RE2), against grep -rn over the whole tree (grep knows no
// .gitignore), grep -rn told the same exclusions by hand, and git grep over the untracked tree (which honours
// .gitignore). Parts: the in-process scanner over the async walk, the walk alone, and the regex engines that were
// candidates for the linear-time matcher, each matching the kept files' texts already in memory.
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { RE2 } from "re2-wasm"
import { RE2JS } from "re2js"
import { workerSearchScanner } from "../adapters/process/search.scanner"
import { createSearchFiles } from "../adapters/workspace/search.files"
import { runSearch } from "../services/files/search"
import { matchingLines } from "../services/files/search.lines"
import type { SearchScanner } from "../services/files/search.ports"
import { compileSearchRegex } from "../services/files/search.regex"
import { entriesScanner } from "../services/files/search.scan"
import { SEARCH_BOUNDS } from "../services/files/search.tally"
import { type Contender, rounds, runProcess, timeNs } from "./tools.harness"

// 20 packages × 5 modules × 4 folders × 45 files: 18,000 files the search should read (20 of them binary), 4 folders deep.
const PACKAGES = 20
const MODULES = 5
const FOLDERS = 4
const FILES_PER_FOLDER = 45
/** Ignored: dist/ (10 × 100 files), <package>/generated/ (20 × 25), <package>/<module>/debug-N.log (100 × 5). */
const DIST = [10, 100] as const
const GENERATED = 25
const LOGS = 5
const LINES_PER_FILE = 30

/** The regex searched for, valid alike as a JavaScript regex and a POSIX ERE (grep -E, git grep -E). */
export const SEARCH_REGEX = "needle_[0-9]+ marker"

export interface SearchTree {
  root: string
  files: number
  /** Files .gitignore leaves to search, and of those the binary ones (NUL bytes; every contender skips them). */
  kept: number
  binaries: number
  ignored: number
  bytes: number
  /** Matching lines in the text files the search should read, and in the ignored ones. */
  keptMatches: number
  ignoredMatches: number
  gitignores: number
  git: boolean
}

function textFile(id: string, needle: boolean): string {
  const lines: string[] = []
  for (let i = 0; i < LINES_PER_FILE; i++) {
    if (needle && i === 7 + (id.length % 20)) lines.push(`  // needle_${i}${id.length} marker: found in ${id}`)
    // Near misses: the word without digits, and digits with another word.
    else if (i === 3) lines.push(`  // needle_x marker, needle_42 mark (${id})`)
    else lines.push(`export const item_${i} = compute(${i}, "${id} lorem ipsum dolor sit amet");`)
  }
  return `${lines.join("\n")}\n`
}

function binaryFile(id: string): Buffer {
  return Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 0]), Buffer.from(`\nneedle_1 marker in ${id}\n`), Buffer.alloc(512, 0)])
}

/** Writes the tree under `root` and (when git is installed) makes it a git repository with nothing committed. */
export function buildSearchTree(root: string): SearchTree {
  const tree: SearchTree = { root, files: 0, kept: 0, binaries: 0, ignored: 0, bytes: 0, keptMatches: 0, ignoredMatches: 0, gitignores: 0, git: false }
  const put = (rel: string, content: string | Buffer): void => {
    const file = path.join(root, rel)
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, content)
    tree.bytes += Buffer.byteLength(content)
  }
  const ignoredFile = (rel: string): void => {
    const needle = tree.ignored % 50 === 0
    put(rel, textFile(rel, needle))
    tree.ignored++
    tree.files++
    if (needle) tree.ignoredMatches++
  }
  put(".gitignore", "dist/\n*.log\n")
  tree.gitignores++
  let n = 0
  for (let p = 0; p < PACKAGES; p++) {
    const pkg = `pkg${String(p).padStart(2, "0")}`
    put(`${pkg}/.gitignore`, "generated/\n")
    tree.gitignores++
    for (let g = 0; g < GENERATED; g++) ignoredFile(`${pkg}/generated/gen${g}.ts`)
    for (let m = 0; m < MODULES; m++) {
      for (let l = 0; l < LOGS; l++) ignoredFile(`${pkg}/mod${m}/debug-${l}.log`)
      for (let d = 0; d < FOLDERS; d++) {
        for (let f = 0; f < FILES_PER_FOLDER; f++, n++) {
          const rel = `${pkg}/mod${m}/dir${d}/file${String(f).padStart(2, "0")}`
          tree.files++
          tree.kept++
          if (n % 900 === 450) {
            put(`${rel}.bin`, binaryFile(rel))
            tree.binaries++
          } else {
            const needle = n % 225 === 17
            put(`${rel}.ts`, textFile(rel, needle))
            if (needle) tree.keptMatches++
          }
        }
      }
    }
  }
  for (let b = 0; b < DIST[0]; b++) for (let c = 0; c < DIST[1]; c++) ignoredFile(`dist/bundle${b}/chunk${c}.js`)
  try {
    execFileSync("git", ["init", "-q", root], { stdio: "ignore" })
    tree.git = true
  } catch {
    tree.git = false
  }
  return tree
}

export interface SearchRow {
  label: string
  /** The name in the ratio rows; undefined for forge itself and for its parts, which get no ratio. */
  short?: string
  /** Files in the contender's scope, as the bench built them. */
  scope: string
  /** Matching lines found in the last run, and the number the tree holds in the contender's scope; undefined: not a search. */
  matches?: number
  expected?: number
}

export interface SearchFigures {
  rows: SearchRow[]
  samples: Float64Array[]
}

interface SearchRun {
  ns: number
  matches?: number
}

export async function measureSearch(tree: SearchTree, count: number, problems: string[]): Promise<SearchFigures> {
  const rows: SearchRow[] = []
  const contenders: Contender[] = []
  const add = (row: SearchRow, run: () => Promise<SearchRun>): void => {
    rows.push(row)
    contenders.push({
      label: row.label,
      async run() {
        const { matches, ns } = await run()
        row.matches = matches
        if (matches !== row.expected) problems.push(`search: ${row.label} found ${matches} matching lines, not ${row.expected}`)
        return ns
      },
    })
  }
  const searchFiles = createSearchFiles()
  const asForge = `${count0(tree.kept + tree.gitignores)}, as forge`
  // The .gitignore files are text files like any other: every contender searches them.
  const textKept = tree.kept - tree.binaries + tree.gitignores
  const pool = workerSearchScanner()
  const forge = (label: string, scanner: SearchScanner, scope: string): void =>
    add({ label, scope, expected: tree.keptMatches }, async () => {
      let searched = 0
      let matches = 0
      const ns = await timeNs(async () => {
        ;({ searched, matches } = await runSearch(scanner, { path: tree.root, regex: SEARCH_REGEX }, SEARCH_BOUNDS))
      })
      if (searched !== textKept) problems.push(`search: ${label} read ${searched} files, not the ${textKept} text files .gitignore leaves (its own included)`)
      return { matches, ns }
    })
  forge("forge_search (runSearch, worker-thread scanner)", pool, `${count0(tree.kept + tree.gitignores)}, .gitignore honoured`)
  const grep = async (args: string[]): Promise<SearchRun> => {
    const run = await runProcess("grep", [...args, "-rnI", "-E", SEARCH_REGEX, "."], tree.root)
    if (run.code !== 0) problems.push(`search: grep ${args.join(" ")} exited with ${run.code}: ${run.stderr.trim()}`)
    return { matches: run.lines, ns: run.ns }
  }
  const whole = `${count0(tree.files + tree.gitignores)}${tree.git ? " + .git" : ""}`
  add({ label: "grep -rnI -E (whole tree, no .gitignore)", short: "grep -r", scope: whole, expected: tree.keptMatches + tree.ignoredMatches }, () => grep([]))
  add({ label: "grep -rnI -E, exclusions given by hand", short: "grep -r by hand", scope: asForge, expected: tree.keptMatches }, () =>
    grep(["--exclude-dir=.git", "--exclude-dir=dist", "--exclude-dir=generated", "--exclude=*.log"]),
  )
  if (tree.git) {
    add({ label: "git grep --untracked -nI -E", short: "git grep", scope: asForge, expected: tree.keptMatches }, async () => {
      const run = await runProcess("git", ["grep", "--untracked", "-nI", "-E", SEARCH_REGEX], tree.root)
      if (run.code !== 0) problems.push(`search: git grep exited with ${run.code}: ${run.stderr.trim()}`)
      return { matches: run.lines, ns: run.ns }
    })
  }
  // Parts of forge's figure: the same search in the calling thread over the async walk, and the walk alone.
  forge("  part: runSearch, in-process scanner (async walk, no worker)", entriesScanner(searchFiles), asForge)
  add({ label: "  part: the async walk alone (.gitignore applied, no read)", scope: asForge }, async () => {
    let entries = 0
    const ns = await timeNs(async () => {
      for await (const _ of searchFiles.entries({ root: tree.root })) entries++
    })
    if (entries !== tree.kept + tree.gitignores) problems.push(`search: the walk listed ${entries} files, not ${tree.kept + tree.gitignores}`)
    return { ns }
  })
  // The candidates for the matcher, on the kept text files' contents, read once before the rounds (untimed).
  const texts: string[] = []
  for await (const entry of searchFiles.entries({ root: tree.root })) {
    const read = await entry.read()
    if (read.status === "text") texts.push(read.text)
  }
  const inMemory = `${count0(texts.length)} in memory`
  const engine = (label: string, matchAll: (text: string) => number): void =>
    add({ label, scope: inMemory, expected: tree.keptMatches }, async () => {
      let matches = 0
      const ns = await timeNs(async () => {
        for (const text of texts) matches += matchAll(text)
      })
      return { matches, ns }
    })
  const re2js = compileSearchRegex(SEARCH_REGEX, "")
  engine("  engine: re2js 2.10 (plain JS, linear; the one chosen), whole text", (text) => matchingLines(re2js, text).length)
  const re2jsLine = RE2JS.compile(SEARCH_REGEX)
  engine("  engine: re2js, line by line", (text) => text.split("\n").filter((line) => re2jsLine.matcher(line).find()).length)
  // re2-wasm is a devDependency kept for this comparison only (its .wasm file would not survive bundling).
  const wasm = new RE2(SEARCH_REGEX, "gmu")
  engine("  engine: re2-wasm 1.0 (WebAssembly, linear), whole text", (text) => {
    let n = 0
    wasm.lastIndex = 0
    while (wasm.exec(text)) n++
    return n
  })
  const js = new RegExp(SEARCH_REGEX, "gm")
  engine("  engine: JavaScript RegExp (backtracking, not a candidate), whole text", (text) => {
    let n = 0
    js.lastIndex = 0
    while (js.exec(text)) n++
    return n
  })
  try {
    return { rows, samples: await rounds(contenders, count, 1) }
  } finally {
    pool.close()
  }
}

const count0 = (n: number): string => `${n.toLocaleString("en-US")} files`
