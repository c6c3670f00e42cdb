import { describe, expect, it } from "vitest"
import { initialTransition } from "xstate"
import type { AuditorHandoff, CoderHandoff } from "../../machines/loop/loop.gates"
import { type LoopContext, type LoopStartInput, type LoopPassView, loopMachine } from "../../machines/loop/loop.machine"
import { LOOP_BRIEF_TAG, loopBriefText, loopEndText } from "../../services/loop/loop.brief"

// What a loop tells its passes' sessions (each pass's brief, the reminder) and the session that started it (the end).

const WORKTREE = { dir: "/work/repo/.opencode/forge/worktrees/ship-the-parser", branch: "forge/loop/ship-the-parser", base: "0123456789abcdef" }

const input: LoopStartInput = {
  loopName: "ship-the-parser",
  title: "Ship the parser",
  hostSession: "ses_host",
  planPath: ".opencode/plan/2026-11-30-ship-the-parser.md",
  planStatus: "approved",
  askedFrom: null,
  worktree: WORKTREE,
  sections: [
    { title: "Parser", content: "Write a recursive-descent parser in src/parser.ts." },
    { title: "Printer", content: "Print with minimal parentheses in src/printer.ts." },
  ],
  maxIterations: 6,
  sandbox: { mode: "bwrap", network: false, problem: null },
  startedAt: 0,
  driver: "opencode-1",
}

/** The loop's context as the machine starts it, with the changes a test needs. */
/** What a pass's brief is written from: the loop's context with the pass's own over it. */
const contextWith = (changes: Partial<LoopPassView>): LoopPassView => ({
  ...initialTransition(loopMachine, input)[0].context,
  phase: "coding",
  pending: null,
  nudges: 0,
  errors: 0,
  ...changes,
})

const coded: CoderHandoff = {
  role: "coder",
  changes: [{ summary: "Parser for + - * /", reason: "section 1" }],
  deviations: [{ planItem: "Keep the lexer", actual: "the lexer emits unary minus", reason: "the parser needs it" }],
  verification: [
    { command: "npm test", cwd: "", outcome: "pass", changedAfter: false },
    { command: "npm run lint", cwd: "packages/core", outcome: "fail", changedAfter: true },
  ],
  notes: "Error messages name the token.",
}

const dirty: AuditorHandoff = {
  role: "auditor",
  findings: [
    { severity: "bug", file: "src/parser.ts", line: 12, description: "unary minus binds looser than multiplication" },
    { severity: "warning", file: "src/lexer.ts", line: null, description: "dead branch" },
    { severity: "warning", file: null, line: null, description: "errors could name the column" },
  ],
  summary: null,
  notes: null,
}

const lines = (text: string) => text.split("\n")

describe("loopBriefText", () => {
  it("briefs a coder on its section, with every finding of the audit that sent it back", () => {
    const brief = loopBriefText(contextWith({ iteration: 3, session: "ses_3", last: dirty }), "coding", "phase")
    expect(lines(brief)[0]).toBe(`${LOOP_BRIEF_TAG} Loop ship-the-parser — section 1 of 2: Parser (pass 3 of at most 6, coder).`)
    expect(brief).toContain(`The loop's git worktree is ${WORKTREE.dir} (branch ${WORKTREE.branch})`)
    expect(brief).toContain("## Section 1: Parser\n\nWrite a recursive-descent parser in src/parser.ts.\n")
    expect(brief).toContain(
      [
        "## Findings of the last audit (fix every bug; weigh each warning)",
        "",
        "- bug src/parser.ts:12: unary minus binds looser than multiplication",
        "- warning src/lexer.ts: dead branch",
        "- warning: errors could name the column",
      ].join("\n"),
    )
    expect(brief).toContain(
      "When the section is implemented and verified, leave your work in the worktree (do not commit: Forge commits it once its audit is clean), then call loop_handoff with",
    )
    expect(brief).not.toContain("Printer")
  })

  it("briefs a coder of a later section on that section; a clean audit adds nothing, its warnings stay with its section", () => {
    const clean: AuditorHandoff = {
      role: "auditor",
      findings: [{ severity: "warning", file: "src/parser.ts", line: 3, description: "errors could name the column" }],
      summary: { done: ["parser"], deviations: [], followUps: [] },
      notes: null,
    }
    const brief = loopBriefText(contextWith({ iteration: 3, sectionIndex: 1, last: clean }), "coding", "phase")
    expect(lines(brief)[0]).toBe(`${LOOP_BRIEF_TAG} Loop ship-the-parser — section 2 of 2: Printer (pass 3 of at most 6, coder).`)
    expect(brief).toContain("## Section 2: Printer\n\nPrint with minimal parentheses in src/printer.ts.\n")
    expect(brief).not.toContain("## Findings")
    expect(brief).not.toContain("errors could name the column")
  })

  it("briefs an auditor with the coder's handoff: changes, deviations, checks and notes", () => {
    const brief = loopBriefText(contextWith({ iteration: 2, last: coded }), "auditing", "phase")
    expect(lines(brief)[0]).toBe(`${LOOP_BRIEF_TAG} Loop ship-the-parser — section 1 of 2: Parser (pass 2 of at most 6, auditor).`)
    expect(brief).toContain(
      [
        "## The coder's handoff",
        "",
        "- change: Parser for + - * / (why: section 1)",
        '- deviation from "Keep the lexer": the lexer emits unary minus (why: the parser needs it)',
        "- verified `npm test` in .: pass",
        "- verified `npm run lint` in packages/core: fail (code changed after)",
        "- notes: Error messages name the token.",
      ].join("\n"),
    )
    expect(brief).toContain("You change no file (file-changing tools are refused in an audit)")
    expect(brief).toContain("run the checks with forge_shell, cwd in the worktree")
    // Only a section audit amends the sections still pending, and it must summarize when clean.
    expect(brief).toContain(
      "a summary {done, deviations, followUps}. Before handing off you may amend the plan with loop_adjust: currentSection edits this section in place",
    )
  })

  it("shows a coder's handoff to an auditor only, and an audit's findings to a coder only", () => {
    expect(loopBriefText(contextWith({ last: coded }), "coding", "phase")).not.toContain("## The coder's handoff")
    expect(loopBriefText(contextWith({ last: dirty }), "auditing", "phase")).not.toContain("## Findings")
  })

  it("briefs the final audit on every section of the plan, as amended, and on no single one", () => {
    const sections = [
      { title: "Parser", content: "Write a recursive-descent parser in src/parser.ts.", status: "done" as const },
      { title: "Printer, amended", content: "Print with minimal parentheses.", status: "done" as const },
    ]
    const brief = loopBriefText(contextWith({ iteration: 5, sectionIndex: 1, sections, last: coded }), "final_auditing", "phase")
    expect(lines(brief)[0]).toBe(`${LOOP_BRIEF_TAG} Loop ship-the-parser — final audit of the whole plan (pass 5 of at most 6, auditor).`)
    expect(brief).toContain(
      [
        "## The plan",
        "",
        "### Section 1: Parser",
        "",
        "Write a recursive-descent parser in src/parser.ts.",
        "",
        "### Section 2: Printer, amended",
        "",
        "Print with minimal parentheses.",
      ].join("\n"),
    )
    expect(
      lines(brief).filter((l) => l.startsWith("## Section")),
      "no single section's heading",
    ).toEqual([])
    expect(brief).toContain("and, when no bug remains, optionally a summary {done, deviations, followUps}.")
    expect(brief).not.toContain("loop_adjust")
  })

  it("briefs the coder who fixes the final audit's findings on the whole plan", () => {
    const brief = loopBriefText(contextWith({ iteration: 6, sectionIndex: 1, last: dirty }), "final_audit_fix", "phase")
    expect(lines(brief)[0]).toBe(`${LOOP_BRIEF_TAG} Loop ship-the-parser — final audit of the whole plan (pass 6 of at most 6, coder).`)
    expect(brief).toContain("### Section 2: Printer")
    expect(brief).toContain("- bug src/parser.ts:12: unary minus binds looser than multiplication")
    expect(brief).toContain("When the final audit's findings are fixed, leave your work in the worktree (do not commit")
  })

  it("reminds a pass whose turn ended without a handoff, counting the reminders", () => {
    expect(lines(loopBriefText(contextWith({ nudges: 1 }), "coding", "nudge"))).toEqual([
      `${LOOP_BRIEF_TAG} Loop ship-the-parser: your turn ended without a handoff (reminder 1 of 2; after that the loop stalls).`,
      `Finish the coding work in ${WORKTREE.dir}, call loop_handoff with the coder's record, and end your turn.`,
    ])
    expect(loopBriefText(contextWith({ nudges: 2 }), "final_auditing", "nudge")).toContain("reminder 2 of 2")
    expect(loopBriefText(contextWith({ nudges: 2 }), "final_auditing", "nudge")).toContain("with the auditor's record")
  })
})

describe("loopEndText", () => {
  /** The worktree as the ending names it: from the workspace root. */
  const SHOWN = ".opencode/forge/worktrees/ship-the-parser"
  const committed = { commits: 2, last: { hash: "9f8e7d6", subject: "section 2: Printer" }, uncommitted: 0 }

  it("tells a completed loop's host what was done, in how many passes, and what git says of its branch", () => {
    const sections = input.sections.map((s) => ({ ...s, status: "done" as const }))
    expect(lines(loopEndText(contextWith({ sections, iteration: 5, reason: "completed" }), "completed", committed))).toEqual([
      `${LOOP_BRIEF_TAG} Loop ship-the-parser completed: every section passed its audit and the final audit is clean.`,
      "2 of 2 sections done in 5 passes.",
      `The branch ${WORKTREE.branch} has 2 commits since 0123456789ab; the last is 9f8e7d6 "section 2: Printer".`,
      `Its worktree ${SHOWN} has no uncommitted change.`,
      `To take it into your checkout: git merge ${WORKTREE.branch}`,
      `Once merged: git worktree remove ${SHOWN}; git branch -d ${WORKTREE.branch}`,
    ])
  })

  it("says plainly that nothing was committed, and what is left uncommitted in the worktree", () => {
    const text = loopEndText(contextWith({ iteration: 1, reason: "cancelled by the user" }), "cancelled", { commits: 0, last: null, uncommitted: 3 })
    expect(lines(text).slice(1)).toEqual([
      "0 of 2 sections done in 1 pass.",
      `Nothing was committed: the branch ${WORKTREE.branch} is still at 0123456789ab.`,
      `Its worktree ${SHOWN} has 3 paths changed and not committed.`,
    ])
    expect(lines(loopEndText(contextWith({}), "cancelled", { commits: 1, last: { hash: "abc1234", subject: "wip" }, uncommitted: null }))[3]).toBe(
      `Its worktree ${SHOWN} is gone.`,
    )
  })

  it("claims nothing of the branch when git could not be read, and says why", () => {
    const text = loopEndText(contextWith({}), "errored", { unreadable: "git rev-list did not finish within 60 s (killed)" })
    expect(lines(text).slice(2)).toEqual([
      `Forge could not read the branch ${WORKTREE.branch} (worktree ${SHOWN}): git rev-list did not finish within 60 s (killed).`,
    ])
    expect(text).not.toMatch(/commit|work is on/)
  })

  it("tells why a loop ended otherwise", () => {
    const sections = [
      { ...input.sections[0], status: "done" as const },
      { ...input.sections[1], status: "pending" as const },
    ] as LoopContext["sections"]
    const stalled = loopEndText(contextWith({ sections, iteration: 4, reason: "stalled: the session ended 3 turns without a handoff" }), "stalled", committed)
    expect(lines(stalled)[0]).toBe(`${LOOP_BRIEF_TAG} Loop ship-the-parser stalled: stalled: the session ended 3 turns without a handoff.`)
    expect(lines(stalled)[1]).toBe("1 of 2 sections done in 4 passes.")
    expect(lines(loopEndText(contextWith({ reason: null }), "cancelled", committed))[0]).toBe(
      `${LOOP_BRIEF_TAG} Loop ship-the-parser cancelled: no reason recorded.`,
    )
  })
})
