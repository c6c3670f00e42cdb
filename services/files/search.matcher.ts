import type { LineHit, LineMatcher, LineMatcherFactory } from "./search.ports"

/**
 * Matches in the calling thread, without a budget: for embedders and tests that search trusted patterns. The plugin
 * uses the worker-backed matcher (adapters/process/search.matcher.ts).
 */
export const inProcessLineMatcher: LineMatcherFactory = ({ source, flags }): LineMatcher => {
  const regex = new RegExp(source, flags)
  return {
    async match(lines) {
      const hits: LineHit[] = []
      lines.forEach((line, index) => {
        const found = regex.exec(line)
        if (found) hits.push({ line: index, index: found.index })
      })
      return { status: "matched", hits }
    },
    close() {},
  }
}
