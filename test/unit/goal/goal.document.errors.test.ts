// parseGoalDocument on malformed documents: a DocumentError naming the file, the line and the problem.

import { describe, expect, it } from "vitest"
import { DocumentError } from "../../../services/documents/document.errors"
import { parseGoalDocument } from "../../../services/goal/goal.document"
import { lineOf, replacingLine, SOURCE, TEXT, thrown } from "./goal.fixtures"

function documentError(text: string): DocumentError {
  const error = thrown(() => parseGoalDocument(text, SOURCE))
  expect(error).toBeInstanceOf(DocumentError)
  return error as DocumentError
}

const LAST_LINE = TEXT.split("\n").length - 1
const CHECK_FORMAT = "a check reads `1. command `cmd` (timeout N s)` or `2. contains `file` :: `text``"

/** [case, text, line, message] with the line counted in `text`. */
const at = (name: string, needle: string, replacement: string[], message: string): [string, string, number, string] => [
  name,
  replacingLine(needle, ...replacement),
  lineOf(TEXT, needle),
  message,
]

describe("parseGoalDocument errors", () => {
  const cases: [string, string, number, string][] = [
    at("unknown status", "status:", ["status: running"], 'unknown status "running" (expected queued, active, paused, completed, abandoned)'),
    at("revision 0", "revision:", ["revision: 0"], "revision must be a whole number of at least 1, got 0"),
    at("max_turns over the ceiling", "max_turns:", ["max_turns: 201"], "max_turns must be a whole number from 1 to 200, got 201"),
    at("max_minutes that is text", "max_minutes:", ["max_minutes: an hour"], 'max_minutes must be a whole number from 1 to 480, got "an hour"'),
    at("max_cost of 0", "max_cost:", ["max_cost: 0"], "max_cost must be a positive amount in USD (e.g. 2.5), got 0"),
    at("fractional max_tokens", "max_tokens:", ["max_tokens: 1.5"], "max_tokens must be a whole number of at least 1, got 1.5"),
    at("negative turns_used", "turns_used:", ["turns_used: -1"], "turns_used must be a whole number of at least 0, got -1"),
    at("armed_at that is no time", "armed_at:", ["armed_at: soon"], 'armed_at "soon" is not an ISO timestamp'),
    at("unknown stop_reason", "armed_at:", ["stop_reason: tired"], 'unknown stop_reason "tired" (expected user, blocker, no-progress,'),
    ["missing created", replacingLine("created:"), 1, "missing created"],
    at("duplicated section", "## Constraints", ["## checks"], `a second "checks" section (the first one is on line ${lineOf(TEXT, "## Checks")})`),
    at("unreadable check line", "1. command", ["1. command npm test"], `unreadable check line "1. command npm test": ${CHECK_FORMAT}`),
    at("unclosed code span", "2. contains", ["2. contains `src/a.ts` :: `x"], "unreadable check line"),
    at("trailing text after a check", "1. command", ["1. command `npm test` (timeout 120 s) now"], "unreadable check line"),
    at("timeout 0", "1. command", ["1. command `npm test` (timeout 0 s)"], "check 1's timeout 0 s is outside 1..600"),
    at("timeout 601", "1. command", ["1. command `npm test` (timeout 601 s)"], "check 1's timeout 601 s is outside 1..600"),
    at("misnumbered check", "2. contains", ["3. contains `src/a.ts` :: `x`"], "check numbered 3 should be check 2"),
    at("blank command", "1. command", ["1. command `  ` (timeout 5 s)"], "check 1's command is empty"),
    at("prose among the criteria", "- zero failing", ["zero failing tests"], 'a line under "Success Criteria" reads "- text", not "zero failing tests"'),
    ["empty objective", TEXT.replace(/(## Objective\n).*\n.*\n/, "$1\n"), lineOf(TEXT, "## Objective"), 'the "Objective" section is empty'],
    at("unreadable Check Log line", "run=r1", ["- 2026-12-02T10:01:00.000Z run=r1 PASS `npm test`"], "unreadable Check Log line"),
    at("Check Log time", "run=r1", ["- yesterday run=r1 rev1 #1 PASS (3 ms) `npm test`"], 'Check Log time "yesterday" is not an ISO timestamp'),
    at("Check Log item 0", "run=r1", ["- 2026-12-02T10:01:00.000Z run=r1 rev1 #0 PASS (3 ms) `x`"], "Check Log revision and item number start at 1"),
    at("unreadable Turn Ledger line", "turn 1:", ["- 2026-12-02T10:02:00.000Z turn 1: busy"], "unreadable Turn Ledger line"),
    at("Turn Ledger turn 0", "turn 1:", ["- 2026-12-02T10:02:00.000Z turn 0: no activity"], "Turn Ledger turn numbers start at 1"),
    at("prose in Revisions", "- (none)", ["edited by hand"], 'a line under "Revisions" reads'),
    at("unclosed fence", "## Constraints", ["```", "## Constraints"], "code fence is never closed"),
  ]
  it.each(cases)("%s", (_name, text, line, message) => {
    const error = documentError(text)
    expect(error.line).toBe(line)
    expect(error.detail).toContain(message)
    expect(error.message.startsWith(`${SOURCE}:${line}: `)).toBe(true)
  })

  it.each([
    ["Objective", "## Objective"],
    ["Success Criteria", "## Success Criteria"],
    ["Checks", "## Checks"],
  ])("a missing %s section is named", (title, heading) => {
    const error = documentError(TEXT.replace(`${heading}\n`, "## Other\n"))
    expect(error.message).toBe(`${SOURCE}:${LAST_LINE}: missing "## ${title}" section (a goal document needs Objective, Success Criteria, Checks)`)
  })

  it("reports a missing frontmatter on line 1", () => {
    expect(documentError(TEXT.slice(TEXT.indexOf("# Goal"))).line).toBe(1)
  })
})
