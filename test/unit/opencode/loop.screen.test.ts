import { describe, expect, it } from "vitest"
import { loopCallFields } from "../../../adapters/opencode/loop/loop.screen"

const loop = { loopName: "greeting", phase: "auditing", section: "1 of 2" }

describe("a loop tool's TUI line", () => {
  it("says which loop and pass a call acts for, and what a handoff hands off in counts", () => {
    expect(loopCallFields("loop_handoff", { changes: [{}, {}], verification: [{}] }, { ...loop, phase: "coding" })).toEqual({
      loop: "greeting",
      phase: "coding",
      section: "1 of 2",
      handoff: "coder: 2 changes, 1 checks",
    })
    expect(loopCallFields("loop_handoff", { findings: [{ severity: "bug" }, { severity: "warning" }] }, loop).handoff).toBe("auditor: 1 bugs, 1 warnings")
    expect(loopCallFields("loop_handoff", { findings: [], summary: { done: ["x"] } }, loop).handoff).toBe("auditor: 0 bugs, 0 warnings (clean)")
  })

  it("says where a start's plan comes from, and how many sections an amendment leaves", () => {
    expect(loopCallFields("loop_start", { title: "t", plan: "## Phase 1: A\nx\n## Phase 2: B\ny" }, undefined)).toEqual({ from: "given inline, 2 phases" })
    expect(loopCallFields("loop_start", { title: "t" }, undefined)).toEqual({ from: "the session's approved plan" })
    expect(loopCallFields("loop_adjust", { sections: [{}], rationale: "r" }, loop).pending).toBe("1 sections after this one")
  })

  it("shows nothing it cannot read from hostile arguments", () => {
    expect(loopCallFields("loop_handoff", "junk", undefined)).toEqual({})
    expect(loopCallFields("loop_handoff", { findings: [null, 7] }, undefined)).toEqual({ handoff: "auditor: 0 bugs, 0 warnings" })
  })
})
