import type { LineSearch, LineSearchResult } from "../../services/documents/document.ports"
import { createPatternMatcher } from "./pattern.matcher"

// plan_read's pattern search, through the same bounded matcher as success_pattern: the regex runs in a worker, one
// line per match call, each call within a time budget, and the whole search within a budget of its own (many lines
// just under the per-line budget would otherwise add up to minutes). The host's event loop never runs the regex.

export interface LineSearchOptions {
  /** Budget of one line (ms). Generous: a plain pattern takes microseconds, a busy 2-core host must not trip it. */
  lineBudgetMs?: number
  /** Budget of the whole search (ms). */
  searchBudgetMs?: number
}

const DEFAULT_LINE_BUDGET_MS = 1000
const DEFAULT_SEARCH_BUDGET_MS = 10_000

export function createLineSearch(options: LineSearchOptions = {}): LineSearch {
  const lineBudgetMs = options.lineBudgetMs ?? DEFAULT_LINE_BUDGET_MS
  const searchBudgetMs = options.searchBudgetMs ?? DEFAULT_SEARCH_BUDGET_MS
  return {
    async matchingLines(pattern: string, lines: readonly string[]): Promise<LineSearchResult> {
      // Compiling only parses the pattern (linear, no matching), so a syntax error is answered here, in its own words.
      try {
        new RegExp(pattern)
      } catch (error) {
        return { status: "invalid", reason: error instanceof Error ? error.message : String(error) }
      }
      if (lines.length === 0) return { status: "searched", matches: [] }
      // No flags (each line is tested alone, as a line) and no overlap (a line never sees the one before it).
      const matcher = createPatternMatcher(pattern, { budgetMs: lineBudgetMs, overlapChars: 0, flags: "" })
      const deadline = Date.now() + searchBudgetMs
      try {
        const matches: number[] = []
        for (const [index, line] of lines.entries()) {
          const result = await matcher.feed(line)
          if (result.status === "timed-out") return { status: "timed-out", budgetMs: lineBudgetMs, line: index, scope: "line" }
          if (result.status === "matched") matches.push(index)
          if (Date.now() > deadline && index < lines.length - 1) return { status: "timed-out", budgetMs: searchBudgetMs, line: index, scope: "search" }
        }
        return { status: "searched", matches }
      } finally {
        matcher.close()
      }
    },
  }
}
