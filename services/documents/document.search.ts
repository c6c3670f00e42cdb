import { DocumentInputError } from "./document.errors"
import type { LineSearch } from "./document.ports"
import { splitLines } from "./markdown.scan"

// A read tool's pattern: the model's regex over documents. The search itself runs behind the LineSearch port
// (bounded, off the host's thread); this file only lays out the lines and words the outcome.

export interface SearchedDocument {
  path: string
  text: string
}

export interface LineHit {
  path: string
  /** 1-based line number in the document. */
  line: number
  text: string
}

/** Every line of the documents that `pattern` matches, in document order; one bounded search for all of them. */
export async function searchDocuments(search: LineSearch, pattern: string, documents: readonly SearchedDocument[]): Promise<LineHit[]> {
  const lines: string[] = []
  const origin: { path: string; line: number }[] = []
  for (const doc of documents) {
    splitLines(doc.text).forEach((text, i) => {
      lines.push(text)
      origin.push({ path: doc.path, line: i + 1 })
    })
  }
  const result = await search.matchingLines(pattern, lines)
  switch (result.status) {
    case "searched":
      return result.matches.map((index) => {
        // The matcher is a port: an index outside the lines it was given is its fault, said plainly.
        const at = origin[index]
        const text = lines[index]
        if (at === undefined || text === undefined) throw new Error(`search matched line index ${index}, outside the ${lines.length} lines searched`)
        return { ...at, text }
      })
    case "invalid":
      throw new DocumentInputError(`invalid regex pattern ${JSON.stringify(pattern)}: ${result.reason}`)
    case "timed-out": {
      const at = origin[result.line]
      const where = at === undefined ? "" : ` line ${at.line} of ${at.path}`
      const over = result.scope === "line" ? `over ${result.budgetMs} ms on${where}` : `over ${result.budgetMs} ms in all, stopped at${where}`
      throw new DocumentInputError(
        `pattern ${JSON.stringify(pattern)} took too long (${over}) and was abandoned: it backtracks too much ` +
          "(nested quantifiers such as (a+)+ do). Search with a simpler pattern or a literal word.",
      )
    }
  }
}
