// Shared plan texts for the plan codec tests.

export const SOURCE = ".opencode/plan/2026-11-30-fix-login-timeout.md"

export const FRONTMATTER = [
  "---",
  "status: draft",
  "title: Fix login timeout",
  "created: 2026-11-30T03:00:00.000Z",
  "updated: 2026-11-30T03:05:00.000Z",
  "session: ses_abc123",
  "---",
].join("\n")

/** The body as the model writes it; line 1 of the body is line 8 of the document. */
export const BODY = [
  "# Fix login timeout", // 8
  "", // 9
  "## Goal", // 10
  "Make idle sessions survive.", // 11
  "", // 12
  "<!-- forge-section -->", // 13
  "## Phase 1: Reproduce", // 14
  "Run the idle scenario.", // 15
  "", // 16
  "```bash", // 17
  "# a comment, not a heading", // 18
  "- [ ] not a task", // 19
  "```", // 20
  "", // 21
  "## Tasks", // 22
  "- [ ] 1. Write a failing test", // 23
  "  - indented detail is free prose", // 24
  "- [x] 2. Raise the timeout <!-- ticked: 2026-11-30T04:00:00.000Z -->", // 25
  "", // 26
  "## Acceptance Criteria", // 27
  "- Login succeeds after 40 s of idle", // 28
  "- [ ] The suite is green", // 29
  "", // ends the last line
].join("\n")

export const DOCUMENT = `${FRONTMATTER}\n${BODY}`

export const NARRATIVE = [
  "",
  "<!-- forge-narrative -->",
  "## 2026-11-30T05:00:00.000Z — closed",
  "> PASS: Login succeeds after 40 s of idle — evidence: test/login.test.ts passes",
  "",
].join("\n")

/** A document with the given frontmatter lines (between the delimiters) and the standard body. */
export function withFrontmatterLines(lines: readonly string[], body = BODY): string {
  return ["---", ...lines, "---", body].join("\n")
}

/** A document with the standard frontmatter and the given body lines (body line 1 is document line 8). */
export function withBodyLines(lines: readonly string[]): string {
  return `${FRONTMATTER}\n${lines.join("\n")}\n`
}

/** Runs `fn`, expecting it to throw, and returns the error. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error("expected a throw")
}
