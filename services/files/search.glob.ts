// forge_search's file_pattern, a glob, read into an RE2 regex and matched by the linear-time engine (re2js): a
// glob's JavaScript regex (picomatch's) backtracks, and a pattern such as "{a,a}*{a,a}*…" froze the host for
// seconds. RE2 matches in time linear in the path whatever the pattern, so only the pattern's own size needs a limit.
//
// The glob language is the usual one: * (no slash), ** (any folders), ?, [abc] / [!abc], {a,b} (nested),
// {1..9} / {a..f} ranges, @(a|b) ?(…) +(…) *(…) extglobs, \ escapes, and a leading ! that negates the whole pattern.
import { RE2JS } from "re2js"
import { MAX_GLOB_CHARS } from "./search.limits"

/** Values a {m..n} range may stand for (each becomes one alternative). */
export const MAX_GLOB_RANGE = 1_000
/** Characters of the regex a glob becomes: ranges and braces nest, and the engine compiles what it is given. */
export const MAX_GLOB_REGEX_CHARS = 100_000

export interface FilePattern {
  /** Whether the file at `rel` ("/"-separated, relative to the searched folder) is searched. */
  matches(rel: string): boolean
}

/**
 * Reads file_pattern into the RE2 source it stands for (anchored, `negated` apart), or throws an error naming it,
 * what is wrong and the limit. Linear in the pattern: safe on the event loop, before any worker starts.
 */
export function readFilePattern(pattern: string): { source: string; negated: boolean } {
  const named = namedPattern(pattern)
  if (pattern.length > MAX_GLOB_CHARS) {
    throw new Error(`${named} is ${pattern.length.toLocaleString("en-US")} characters long; the limit is ${MAX_GLOB_CHARS.toLocaleString("en-US")}.`)
  }
  let glob = pattern.replace(/^\.\//, "")
  const negated = glob.startsWith("!") && !glob.startsWith("!(")
  if (negated) glob = glob.slice(1)
  let source: string
  try {
    source = new GlobReader(glob).read()
  } catch (error) {
    throw new Error(`${named} is not a valid glob: ${(error as Error).message}`)
  }
  if (source.length > MAX_GLOB_REGEX_CHARS) {
    throw new Error(
      `${named} expands to a regex of ${source.length.toLocaleString("en-US")} characters; the limit is ${MAX_GLOB_REGEX_CHARS.toLocaleString("en-US")}. Use fewer or smaller braces and ranges.`,
    )
  }
  return { source: `^(?:${source})$`, negated }
}

/**
 * The compiled file_pattern. Compiling a large alternation and matching with it take time that grows with the
 * pattern (within MAX_GLOB_REGEX_CHARS): the plugin compiles and matches only in its search workers.
 */
export function compileFilePattern(pattern: string): FilePattern {
  const named = namedPattern(pattern)
  const { source, negated } = readFilePattern(pattern)
  let engine: RE2JS
  try {
    engine = RE2JS.compile(source, RE2JS.DOTALL)
  } catch (error) {
    throw new Error(`${named} is not a valid glob: ${(error as Error).message}`)
  }
  const base = (rel: string): string => rel.slice(rel.lastIndexOf("/") + 1)
  // A pattern is tested against the path and against the file name: "*.ts" finds .ts files at any depth. A negated
  // one keeps a file that neither its path nor its name is excluded by (with "or", "src/a.test.ts" would pass
  // "!*.test.ts" because its path is no "*.test.ts").
  if (negated) return { matches: (rel) => !engine.testExact(rel) && !engine.testExact(base(rel)) }
  return { matches: (rel) => engine.testExact(rel) || engine.testExact(base(rel)) }
}

const namedPattern = (pattern: string): string => `forge_search: file_pattern ${JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern)}`

const REGEX_SPECIAL = /[\\^$.*+?()[\]{}|/]/g
const escapeRegex = (text: string): string => text.replace(REGEX_SPECIAL, "\\$&")

/** A recursive-descent reader of one glob into an RE2 source; `stop` characters end an alternative. */
class GlobReader {
  private at = 0
  constructor(private readonly glob: string) {}

  read(): string {
    const source = this.sequence("")
    if (this.at < this.glob.length) throw new Error(`unexpected ${JSON.stringify(this.glob[this.at])} at character ${this.at + 1}`)
    return source
  }

  /** Reads up to (not past) one of `stop`'s characters at this nesting level, or the end. */
  private sequence(stop: string): string {
    let out = ""
    const g = this.glob
    while (this.at < g.length) {
      const c = g[this.at] as string
      if (stop.includes(c)) break
      const next = g[this.at + 1]
      if (c === "\\") {
        out += escapeRegex(next ?? "\\")
        this.at += next === undefined ? 1 : 2
      } else if ("@?+*!".includes(c) && next === "(") {
        out += this.extglob(c)
      } else if (c === "*") {
        out += this.star()
      } else if (c === "?") {
        out += "[^/]"
        this.at++
      } else if (c === "[") {
        out += this.bracket()
      } else if (c === "{") {
        out += this.brace()
      } else {
        out += escapeRegex(c)
        this.at++
      }
    }
    return out
  }

  /** `*` is one segment's characters; `**` as a whole segment is any folders (none included). */
  private star(): string {
    const g = this.glob
    let end = this.at
    while (g[end] === "*") end++
    const count = end - this.at
    const segmentStart = this.at === 0 || g[this.at - 1] === "/"
    const segmentEnd = end === g.length || g[end] === "/"
    this.at = end
    if (count < 2 || !segmentStart || !segmentEnd) return "[^/]*"
    if (g[end] === "/") {
      this.at++
      return "(?:.*/)?"
    }
    // A trailing "/**" (or "**" alone): the folder's contents at any depth.
    return ".*"
  }

  private bracket(): string {
    const g = this.glob
    let i = this.at + 1
    let negate = false
    if (g[i] === "!" || g[i] === "^") {
      negate = true
      i++
    }
    let body = ""
    const first = i
    for (; i < g.length; i++) {
      const c = g[i] as string
      if (c === "]" && i > first) break
      if (c === "\\" && i + 1 < g.length) {
        body += `\\${g[i + 1]}`
        i++
      } else if (c === "[" && g[i + 1] === ":") {
        const close = g.indexOf(":]", i + 2)
        if (close < 0) throw new Error(`unclosed [: class at character ${i + 1}`)
        body += g.slice(i, close + 2)
        i = close + 1
      } else if (c === "]" || c === "[" || c === "^") body += `\\${c}`
      else body += c
    }
    // No closing bracket: the "[" is a plain character.
    if (i >= g.length) {
      this.at++
      return "\\["
    }
    this.at = i + 1
    return negate ? `[^/${body}]` : `(?:[${body}])`
  }

  private brace(): string {
    const g = this.glob
    const start = this.at
    this.at++
    const alternatives: string[] = []
    const range = /^(-?\d+)\.\.(-?\d+)\}|^([a-zA-Z])\.\.([a-zA-Z])\}/.exec(g.slice(this.at))
    if (range) {
      this.at += range[0].length
      return rangeSource(range)
    }
    for (;;) {
      alternatives.push(this.sequence(",}"))
      const c = g[this.at]
      if (c === ",") this.at++
      else if (c === "}") break
      else {
        // No closing brace: the "{" is a plain character, and what followed is read again as it is.
        this.at = start + 1
        return "\\{"
      }
    }
    this.at++
    // "{a}" is no alternation: the braces are the characters themselves, as in the shell.
    if (alternatives.length === 1) return `\\{${alternatives[0]}\\}`
    return `(?:${alternatives.join("|")})`
  }

  private extglob(kind: string): string {
    const g = this.glob
    const start = this.at
    if (kind === "!") throw new Error(`!(…) at character ${start + 1} is not supported; put ! at the pattern's start to exclude files`)
    this.at += 2
    const alternatives: string[] = []
    for (;;) {
      alternatives.push(this.sequence("|)"))
      const c = g[this.at]
      if (c === "|") this.at++
      else if (c === ")") break
      else throw new Error(`unclosed ${kind}( at character ${start + 1}`)
    }
    this.at++
    const group = `(?:${alternatives.join("|")})`
    return kind === "@" ? group : `${group}${kind}`
  }
}

/** {1..12} or {a..f}: numbers as themselves (an alternation), letters as a class. */
function rangeSource(range: RegExpExecArray): string {
  if (range[3] !== undefined && range[4] !== undefined) {
    const [from, to] = [range[3], range[4]].sort() as [string, string]
    return `[${escapeRegex(from)}-${escapeRegex(to)}]`
  }
  const a = Number(range[1])
  const b = Number(range[2])
  const [low, high] = a <= b ? [a, b] : [b, a]
  const values = high - low + 1
  if (!Number.isSafeInteger(values) || values > MAX_GLOB_RANGE) {
    throw new Error(
      `the range {${range[1]}..${range[2]}} stands for ${values.toLocaleString("en-US")} values; the limit is ${MAX_GLOB_RANGE.toLocaleString("en-US")}`,
    )
  }
  const numbers: string[] = []
  for (let n = low; n <= high; n++) numbers.push(escapeRegex(String(n)))
  return `(?:${numbers.join("|")})`
}
