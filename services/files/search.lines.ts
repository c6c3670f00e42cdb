// The matching lines of one file's text, found with the linear-time engine over the whole text at once (one engine
// call per matching line, not one per line), then checked line by line where a match could run past its line.
import type { RE2JS } from "re2js"
import type { LineHit } from "./search.ports"

/**
 * Every line of `text` (LF or CRLF lines; a final line end opens no empty line) the engine finds a match in, with
 * where its first match starts. `engine` must be multi-line, so ^ and $ match at line ends.
 */
export function matchingLines(engine: RE2JS, text: string): LineHit[] {
  // $ does not match before "\r\n": such a text is tested line by line, each without its CR.
  if (text.includes("\r")) return lineByLine(engine, text)
  const hits: LineHit[] = []
  const matcher = engine.matcher(text)
  let line = 0
  let lineStart = 0
  while (lineStart < text.length && matcher.find(lineStart)) {
    const start = matcher.start()
    for (let nl = text.indexOf("\n", lineStart); nl !== -1 && nl < start; nl = text.indexOf("\n", lineStart)) {
      line++
      lineStart = nl + 1
    }
    // A match at the very end, after the final line end, is on no line.
    if (lineStart >= text.length) break
    const newline = text.indexOf("\n", lineStart)
    const lineEnd = newline === -1 ? text.length : newline
    if (matcher.end() <= lineEnd) hits.push({ line, index: start - lineStart })
    else {
      // The match runs past its line (\s or [^x] take a line end): the line alone decides.
      const alone = engine.matcher(text.slice(lineStart, lineEnd))
      if (alone.find()) hits.push({ line, index: alone.start() })
    }
    line++
    lineStart = lineEnd + 1
  }
  return hits
}

function lineByLine(engine: RE2JS, text: string): LineHit[] {
  const hits: LineHit[] = []
  const lines = text.split("\n")
  if (lines.at(-1) === "") lines.pop()
  lines.forEach((raw, line) => {
    const matcher = engine.matcher(raw.endsWith("\r") ? raw.slice(0, -1) : raw)
    if (matcher.find()) hits.push({ line, index: matcher.start() })
  })
  return hits
}
