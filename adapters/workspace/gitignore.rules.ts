// .gitignore as git reads it, for a walk below one folder: each .gitignore file speaks about paths relative to its
// own folder and applies to its subtree; the deepest file with a verdict on a path decides (a nested "!keep.log"
// re-includes what a parent's "*.log" excluded). Above the walked folder, the repository's .gitignore files and
// .git/info/exclude apply too, as they would to `git status` run there. Patterns are read by the `ignore` package.
// Synchronous: the walk runs in forge_search's worker threads, where a blocking read blocks nobody, and a .gitignore
// is a few hundred bytes (a promise per file cost more than the read).
import { existsSync, readFileSync } from "node:fs"
import path from "node:path"
import ignore, { type Ignore } from "ignore"

interface RuleFile {
  ig: Ignore
  /**
   * Whether a rule may speak of a file: a rule ending in "/" (node_modules/, dist/) speaks only of folders, and an
   * ignored folder is never entered, so a file is not tested against a file of such rules (most files tested, most
   * rules folder rules: this halves the walk's cost).
   */
  files: boolean
  /** The path, relative to the rule file's folder, of a path given relative to the walked folder. */
  relative(rel: string): string
}

/** The .gitignore rules in force at one folder of the walk; `within` adds a subfolder's own file. */
export class GitignoreRules {
  private constructor(private readonly files: readonly RuleFile[]) {}

  /**
   * The rules in force at the walked folder `root`, its own .gitignore not yet included: those of the repository's
   * folders above it, when it is inside a git repository. When they ignore `root` itself, the search was asked for an
   * ignored folder on purpose (node_modules/some-package), and they are left out.
   */
  static above(root: string): GitignoreRules {
    const repo = repositoryOf(root)
    if (repo === undefined || repo === root) {
      const exclude = repo === undefined ? undefined : excludeRules(repo, root)
      return new GitignoreRules(exclude ? [exclude] : [])
    }
    const files: RuleFile[] = []
    const exclude = excludeRules(repo, root)
    if (exclude) files.push(exclude)
    for (let dir = repo; dir !== root; dir = path.join(dir, path.relative(dir, root).split(path.sep)[0] as string)) {
      const rules = readRules(path.join(dir, ".gitignore"))
      if (rules) files.push({ ...rules, relative: fromFolder(dir, root) })
    }
    const rules = new GitignoreRules(files)
    return rules.ignores("", true) ? new GitignoreRules([]) : rules
  }

  /** These rules plus the .gitignore in `dir`; `rel` is `dir` relative to the walked folder ("" for the folder itself). */
  within(dir: string, rel: string): GitignoreRules {
    const rules = readRules(path.join(dir, ".gitignore"))
    if (!rules) return this
    const relative = rel === "" ? (p: string) => p : (p: string) => p.slice(rel.length + 1)
    return new GitignoreRules([...this.files, { ...rules, relative }])
  }

  /** Whether `rel` (relative to the walked folder, "/"-separated; "" is the folder) is ignored; `dir`: a folder. */
  ignores(rel: string, dir: boolean): boolean {
    for (let i = this.files.length - 1; i >= 0; i--) {
      const file = this.files[i] as RuleFile
      const target = file.relative(rel)
      if (target === "") continue
      if (!dir && !file.files) continue
      const verdict = test(file.ig, dir ? `${target}/` : target)
      if (verdict.ignored) return true
      if (verdict.unignored) return false
    }
    return false
  }
}

/** The nearest folder at or above `root` holding `.git` (a folder, or a file in a worktree or submodule). */
function repositoryOf(root: string): string | undefined {
  for (let dir = root; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, ".git"))) return dir
    if (path.dirname(dir) === dir) return undefined
  }
}

function excludeRules(repo: string, root: string): RuleFile | undefined {
  const rules = readRules(path.join(repo, ".git", "info", "exclude"))
  return rules ? { ...rules, relative: fromFolder(repo, root) } : undefined
}

/** Maps a path relative to `root` to one relative to `folder`, an ancestor of it. */
function fromFolder(folder: string, root: string): (rel: string) => string {
  const prefix = path.relative(folder, root).split(path.sep).join("/")
  return (rel) => (prefix === "" ? rel : rel === "" ? prefix : `${prefix}/${rel}`)
}

/** Git matches case-sensitively on Linux (core.ignorecase false); `ignore` defaults to case-insensitive. */
function readRules(file: string): { ig: Ignore; files: boolean } | undefined {
  try {
    const text = readFileSync(file, "utf8")
    // A folder rule ends in "/" (trailing spaces are dropped unless escaped, which no folder rule needs).
    const files = text.split("\n").some((line) => {
      const rule = line.replace(/\r$/, "").trimEnd()
      return rule !== "" && !rule.startsWith("#") && !rule.endsWith("/")
    })
    return { ig: ignore({ ignorecase: false }).add(text), files }
  } catch {
    return undefined
  }
}

/** A name `ignore` calls invalid (it takes relative paths only) is one no rule speaks about. */
function test(ig: Ignore, rel: string): { ignored: boolean; unignored: boolean } {
  try {
    return ig.test(rel)
  } catch {
    return { ignored: false, unignored: false }
  }
}
