// The text checks every expectation shares: `contains` / `notContains` (a string or a list) and `matches` (a
// regular expression, compiled with the m flag).
import type { TextMatch } from "./scenario.schema"

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v])

/** What `text` lacks (or holds but must not) of a `contains` / `notContains` / `matches` check; empty when it holds. */
export function textProblems(text: string, e: TextMatch): string[] {
  const problems: string[] = []
  for (const s of list(e.contains)) if (!text.includes(s)) problems.push(`does not contain ${JSON.stringify(s)}`)
  for (const s of list(e.notContains)) if (text.includes(s)) problems.push(`contains ${JSON.stringify(s)}`)
  if (e.matches !== undefined && !new RegExp(e.matches, "m").test(text)) problems.push(`does not match /${e.matches}/`)
  return problems
}
