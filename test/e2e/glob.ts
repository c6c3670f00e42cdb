// Globs in expectation paths and instance ids (plan files carry a date in their name), with picomatch semantics.
import fs from "node:fs"
import path from "node:path"
import picomatch from "picomatch"
import { globSync } from "tinyglobby"

/** Exact comparison, or a glob match when the pattern is a glob. */
export function globMatches(pattern: string, value: string): boolean {
  return picomatch.scan(pattern).isGlob ? picomatch.isMatch(value, pattern, { dot: true }) : pattern === value
}

/** Project-relative paths (with `/`) of the files matching the pattern, sorted; node_modules and .git are skipped. */
export function findFiles(root: string, pattern: string): string[] {
  if (!picomatch.scan(pattern).isGlob) {
    const abs = path.join(root, pattern)
    return fs.existsSync(abs) && fs.statSync(abs).isFile() ? [pattern] : []
  }
  return globSync(pattern, { cwd: root, dot: true, onlyFiles: true, ignore: ["**/node_modules/**", "**/.git/**"] }).sort()
}
