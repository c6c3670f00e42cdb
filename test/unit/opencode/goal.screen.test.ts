import { describe, expect, it } from "vitest"
import { goalCallFields } from "../../../adapters/opencode/goal/goal.screen"

const goal = { goalPath: ".opencode/goal/2026-12-02-green.md", status: "active", turns: "3/25" }

describe("what a goal call's TUI line shows", () => {
  it("an arm: what the user decides and every check the host will run", () => {
    const args = { objective: "green", checks: [{ command: "npm test", timeout: 300 }, { file: "CHANGELOG.md", text: "## Unreleased" }, { cmd: "x" }] }
    expect(goalCallFields("goal_write", args, undefined)).toEqual({
      decide: "arm: the session then works on it by itself",
      "check 1": "command `npm test` (300 s)",
      "check 2": "CHANGELOG.md contains ## Unreleased",
    })
    expect(goalCallFields("goal_write", { ...args, arm: false }, undefined).decide).toBe("queue (no dialog)")
  })

  it("a revision names the live goal it rewrites", () => {
    expect(goalCallFields("goal_write", { revise: true, checks: [] }, goal)).toEqual({ path: goal.goalPath, status: "active" })
  })

  it("a completion: the goal, and every attestation with its evidence", () => {
    const args = { attestations: [{ criterion: "zero failing tests", evidence: "npm test: 12 passed" }, { criterion: 3 }] }
    expect(goalCallFields("goal_complete", args, goal)).toEqual({
      path: goal.goalPath,
      status: "active",
      decide: "complete: the host re-runs every check first",
      "ATTEST 1": "zero failing tests — npm test: 12 passed",
    })
  })

  it("a resume shows the turns used, a discard says so, a pause or check names the goal", () => {
    expect(goalCallFields("goal_resume", { addTurns: 5 }, goal)).toMatchObject({
      path: goal.goalPath,
      turns: "3/25",
      decide: "resume: the session works on it by itself again",
    })
    expect(goalCallFields("goal_discard", {}, goal)).toMatchObject({ decide: "discard" })
    expect(goalCallFields("goal_pause", null, goal)).toEqual({ path: goal.goalPath, status: "active" })
    expect(goalCallFields("goal_check", {}, undefined)).toEqual({})
  })
})
