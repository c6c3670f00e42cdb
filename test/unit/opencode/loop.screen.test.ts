import { describe, expect, it } from "vitest"
import path from "node:path"
import { loopCallFields } from "../../../adapters/opencode/loop/loop.screen"
import { DEFAULT_LOOP_ITERATIONS } from "../../../services/loop/loop.start.defaults"

const loop = { loopName: "greeting", phase: "auditing", section: "1 of 2", openBugs: 0 }

describe("a loop tool's TUI line", () => {
  it("says which loop and pass a call acts for, and what a handoff hands off in counts", () => {
    expect(loopCallFields("loop_handoff", { changes: [{}, {}], verification: [{}] }, { ...loop, phase: "coding" })).toEqual({
      loop: "greeting",
      phase: "coding",
      section: "1 of 2",
      handoff: "coder: 2 changes, 1 check",
    })
    expect(loopCallFields("loop_handoff", { findings: [{ severity: "bug" }, { severity: "warning" }] }, loop).handoff).toBe("auditor: 1 bug, 1 warning")
    expect(loopCallFields("loop_handoff", { findings: [], summary: { done: ["x"] } }, loop).handoff).toBe("auditor: 0 bugs, 0 warnings (clean)")
    // A bug recorded with review_write and still open blocks the audit: the line says so, and never "clean".
    expect(loopCallFields("loop_handoff", {}, { ...loop, openBugs: 1 }).handoff).toBe("auditor: 0 bugs, 0 warnings, 1 recorded bug open")
  })

  it("says where a start's plan comes from, its budget and branch, and how many sections an amendment leaves", () => {
    expect(loopCallFields("loop_start", { title: "Greet better", plan: "## Phase 1: A\nx\n## Phase 2: B\ny", maxIterations: 1 }, undefined)).toEqual({
      from: "given inline, 2 sections",
      budget: "1 pass",
      branch: `forge/loop/greet-better in ${path.join(".opencode", "forge", "worktrees")}/greet-better (greet-better-2, -3… when taken)`,
    })
    expect(loopCallFields("loop_start", { title: "t", name: "My Loop!" }, undefined)).toMatchObject({
      from: "the session's approved plan (it has none: the call is refused)",
      budget: `${DEFAULT_LOOP_ITERATIONS} passes, more when the sections need them`,
      branch: expect.stringMatching(/^forge\/loop\/my-loop in /),
    })
    const plan = { planPath: ".opencode/plan/2026-12-05-greeting.md", status: "approved", sections: 1 }
    expect(loopCallFields("loop_start", { title: "t" }, undefined, plan).from).toBe(".opencode/plan/2026-12-05-greeting.md (approved, 1 section)")
    expect(loopCallFields("loop_start", { title: "t" }, undefined, { ...plan, status: "draft", sections: null }).from).toBe(
      ".opencode/plan/2026-12-05-greeting.md (draft, its sections unread)",
    )
    expect(loopCallFields("loop_adjust", { sections: [{}], rationale: "r" }, loop).pending).toBe("1 section after this one")
    expect(loopCallFields("loop_adjust", { sections: [{}, {}], rationale: "r" }, loop).pending).toBe("2 sections after this one")
    expect(loopCallFields("loop_adjust", { currentSection: { title: "Parser", content: "x" }, rationale: "r" }, loop)).toMatchObject({
      current: "edited in place: Parser",
      pending: "kept",
    })
  })

  it("shows nothing it cannot read from hostile arguments", () => {
    expect(loopCallFields("loop_handoff", "junk", undefined)).toEqual({})
    expect(loopCallFields("loop_handoff", { findings: [null, 7] }, undefined)).toEqual({ handoff: "auditor: 0 bugs, 0 warnings" })
  })
})
