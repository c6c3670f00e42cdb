import { describe, expect, it } from "vitest"
import {
  type AdjustStanding,
  type AuditorHandoff,
  type CoderHandoff,
  type LoopFinding,
  type LoopPhase,
  type LoopSection,
  MAX_LOOP_AMENDMENTS,
  MAX_LOOP_SECTIONS,
  adjustProblems,
  handoffProblems,
  hasBlockingFindings,
  isCleanAudit,
  isDeniedInLoop,
  passesNeeded,
  roleOfPhase,
} from "../../machines/loop/loop.gates"
import { isFileChangingTool } from "../../machines/tool.kinds"

// The loop machine's guards as plain predicates: the records a phase takes, and the auditor's amendment.

const bug: LoopFinding = { severity: "bug", file: "src/parser.ts", line: 12, description: "unary minus binds looser than multiplication" }
const warning: LoopFinding = { severity: "warning", file: null, line: null, description: "errors could name the column" }

const coder = (overrides: Partial<CoderHandoff> = {}): CoderHandoff => ({
  role: "coder",
  changes: [{ summary: "Parser", reason: "section 1" }],
  deviations: [],
  verification: [{ command: "npm test", cwd: "", outcome: "pass", changedAfter: false }],
  notes: null,
  ...overrides,
})

const summary = { done: ["the parser reads the grammar"], deviations: [], followUps: [] }
const auditor = (overrides: Partial<AuditorHandoff> = {}): AuditorHandoff => ({ role: "auditor", findings: [], summary, notes: null, ...overrides })

const PHASES: LoopPhase[] = ["coding", "auditing", "final_auditing", "final_audit_fix", "post_action"]

describe("roleOfPhase", () => {
  it("a coder codes a section and fixes the final audit's findings; an auditor audits a section and the whole; the post-action wraps up", () => {
    expect(PHASES.map(roleOfPhase)).toEqual(["coder", "auditor", "auditor", "coder", "post_action"])
  })
})

describe("hasBlockingFindings and isCleanAudit", () => {
  it("a bug blocks; warnings alone do not", () => {
    expect(hasBlockingFindings([])).toBe(false)
    expect(hasBlockingFindings([warning, warning])).toBe(false)
    expect(hasBlockingFindings([warning, bug])).toBe(true)
  })

  it("only an auditor's handoff without a bug is a clean audit", () => {
    expect(isCleanAudit(auditor())).toBe(true)
    expect(isCleanAudit(auditor({ findings: [warning], summary: null }))).toBe(true)
    expect(isCleanAudit(auditor({ findings: [warning, bug], summary: null }))).toBe(false)
    // A coder's record is no audit, however good; no record is none either.
    expect(isCleanAudit(coder())).toBe(false)
    expect(isCleanAudit(null)).toBe(false)
  })
})

describe("handoffProblems", () => {
  it("a phase takes its own role's record only", () => {
    expect(handoffProblems("coding", auditor())).toEqual(["the coding phase takes the coder's handoff, not the auditor's"])
    expect(handoffProblems("final_audit_fix", auditor())).toEqual(["the final_audit_fix phase takes the coder's handoff, not the auditor's"])
    expect(handoffProblems("auditing", coder())).toEqual(["the auditing phase takes the auditor's handoff, not the coder's"])
    expect(handoffProblems("final_auditing", coder())).toEqual(["the final_auditing phase takes the auditor's handoff, not the coder's"])
  })

  it("takes a coder's record with a change and a verification, in both coder phases", () => {
    expect(handoffProblems("coding", coder())).toEqual([])
    expect(handoffProblems("final_audit_fix", coder({ verification: [{ command: "npm test", cwd: "pkg", outcome: "fail", changedAfter: true }] }))).toEqual([])
  })

  it("a coder's record names at least one change and at least one verification (both said at once)", () => {
    const change = "a coder handoff names at least one change (summary and reason)"
    const check = "a coder handoff names at least one verification (command, cwd, outcome)"
    expect(handoffProblems("coding", coder({ changes: [] }))).toEqual([change])
    expect(handoffProblems("coding", coder({ verification: [] }))).toEqual([check])
    expect(handoffProblems("final_audit_fix", coder({ changes: [], verification: [] }))).toEqual([change, check])
  })

  it("a bug sends the work back: the audit that finds one hands off its findings, without a summary", () => {
    expect(handoffProblems("auditing", auditor({ findings: [bug], summary: null }))).toEqual([])
    expect(handoffProblems("final_auditing", auditor({ findings: [bug, warning], summary: null }))).toEqual([])
    for (const phase of ["auditing", "final_auditing"] as const) {
      expect(handoffProblems(phase, auditor({ findings: [bug] }))).toEqual(["a summary is forbidden while bug findings remain: the section is not done"])
    }
  })

  it("a clean section audit needs its summary; the final audit may go without one", () => {
    expect(handoffProblems("auditing", auditor({ findings: [warning], summary: null }))).toEqual([
      "a clean section audit needs its summary (done, deviations, followUps)",
    ])
    expect(handoffProblems("auditing", auditor({ findings: [warning] }))).toEqual([])
    expect(handoffProblems("final_auditing", auditor({ summary: null }))).toEqual([])
    expect(handoffProblems("final_auditing", auditor())).toEqual([])
  })

  it("a summary names at least one thing done, whichever audit gives it", () => {
    for (const phase of ["auditing", "final_auditing"] as const) {
      expect(handoffProblems(phase, auditor({ summary: { done: [], deviations: ["none"], followUps: [] } }))).toEqual([
        "a summary names at least one thing done",
      ])
    }
  })
})

describe("adjustProblems", () => {
  const sections = (...statuses: LoopSection["status"][]): LoopSection[] =>
    statuses.map((status, i) => ({ title: `S${i + 1}`, content: `do ${i + 1}`, status }))
  const plan = (count: number) => Array.from({ length: count }, (_, i) => ({ title: `New ${i + 1}`, content: `new work ${i + 1}` }))
  /** The loop at that section, with passes and amendments to spare unless given. */
  const at = (sections: LoopSection[], sectionIndex: number, more: Partial<AdjustStanding> = {}): AdjustStanding => ({
    sections,
    sectionIndex,
    iteration: 2,
    maxIterations: 100,
    amendments: 0,
    ...more,
  })

  it("keeps within the passes left (two per pending section, the final audit and the post-action) and the amendments a loop takes", () => {
    expect(adjustProblems(at(sections("pending", "pending"), 0, { iteration: 3, maxIterations: 9 }), { pending: plan(2) }, "why")).toEqual([])
    expect(adjustProblems(at(sections("pending", "pending"), 0, { iteration: 4, maxIterations: 9 }), { pending: plan(2) }, "why")).toEqual([
      "2 pending sections need 6 more passes and the loop has 5 left (maxIterations 9)",
    ])
    expect(passesNeeded(3)).toBe(8)
    expect(adjustProblems(at(sections("pending"), 0, { amendments: MAX_LOOP_AMENDMENTS - 1 }), { pending: [] }, "why")).toEqual([])
    expect(adjustProblems(at(sections("pending"), 0, { amendments: MAX_LOOP_AMENDMENTS }), { pending: [] }, "why")).toEqual([
      `the loop has taken its ${MAX_LOOP_AMENDMENTS} amendments`,
    ])
  })

  it("takes a rationale and titled, written pending sections after the section under audit", () => {
    expect(adjustProblems(at(sections("pending", "pending"), 0), { pending: plan(2) }, "split the printer")).toEqual([])
    // Dropping every pending section is an amendment too: the section under audit becomes the last.
    expect(adjustProblems(at(sections("done", "pending", "pending"), 1), { pending: [] }, "the rest moves to its own plan")).toEqual([])
  })

  it("needs a rationale that is not blank", () => {
    expect(adjustProblems(at(sections("pending", "pending"), 0), { pending: plan(1) }, "")).toEqual(["an amendment needs its rationale"])
    expect(adjustProblems(at(sections("pending", "pending"), 0), { pending: plan(1) }, " \n\t")).toEqual(["an amendment needs its rationale"])
  })

  it("keeps the plan within MAX_LOOP_SECTIONS, counting the sections kept", () => {
    expect(adjustProblems(at(sections("pending"), 0), { pending: plan(MAX_LOOP_SECTIONS - 1) }, "more")).toEqual([])
    expect(adjustProblems(at(sections("pending"), 0), { pending: plan(MAX_LOOP_SECTIONS) }, "more")).toEqual([
      `the plan would have 25 sections (at most ${MAX_LOOP_SECTIONS})`,
    ])
    expect(adjustProblems(at(sections("done", "done", "pending"), 2), { pending: plan(MAX_LOOP_SECTIONS - 2) }, "more")).toEqual([
      `the plan would have 25 sections (at most ${MAX_LOOP_SECTIONS})`,
    ])
  })

  it("refuses to amend after the section under audit is done", () => {
    expect(adjustProblems(at(sections("done", "pending"), 0), { pending: plan(1) }, "late")).toEqual(["section 1 is done already"])
  })

  it("names each pending section without a title or content by its place", () => {
    const pending = [
      { title: "Printer", content: "print" },
      { title: "  ", content: "x" },
      { title: "Docs", content: "" },
    ]
    expect(adjustProblems(at(sections("pending", "pending"), 0), { pending: pending }, "why")).toEqual([
      "pending section 2 needs a title and content",
      "pending section 3 needs a title and content",
    ])
  })

  it("says every problem at once, in order", () => {
    expect(adjustProblems(at(sections("done"), 0), { pending: [...plan(MAX_LOOP_SECTIONS - 1), { title: "", content: "" }] }, "")).toEqual([
      "an amendment needs its rationale",
      `the plan would have 25 sections (at most ${MAX_LOOP_SECTIONS})`,
      "section 1 is done already",
      `pending section ${MAX_LOOP_SECTIONS} needs a title and content`,
    ])
  })
})

describe("isFileChangingTool", () => {
  it("names opencode's and Forge's file-changing tools, and anything named like a patch tool; reads and shells are not", () => {
    for (const tool of ["write", "edit", "multiedit", "apply_patch", "forge_write", "forge_patch", "forge_remove", "forge_undo", "forge_rewind", "my_patcher"])
      expect(isFileChangingTool(tool), tool).toBe(true)
    for (const tool of ["read", "grep", "forge_read", "forge_search", "forge_shell", "bash", "task", "loop_handoff"])
      expect(isFileChangingTool(tool), tool).toBe(false)
  })
})

describe("the tools a loop's sessions never use", () => {
  it("denies plan authoring, loop management and questions to the user; reading the plan and working are theirs", () => {
    for (const tool of ["plan_write", "plan_edit", "plan_approve", "plan_close", "loop_start", "loop_status", "loop_cancel", "question"])
      expect(isDeniedInLoop(tool), tool).toBe(true)
    for (const tool of ["plan_read", "forge_shell", "bash", "forge_write", "review_write", "loop_handoff", "loop_complete", "section_read", "task"])
      expect(isDeniedInLoop(tool), tool).toBe(false)
  })
})
