import { describe, expect, it } from "vitest"
import { crewCallFields } from "../../../adapters/opencode/crew/crew.screen"

// What a crew call's TUI line says beside the model's arguments: the crew it acts on and what the dialog below it
// decides (the line is all the TUI shows of a plugin tool's dialog).

const crew = {
  crewPath: ".opencode/crew/2026-12-02-parser-tests.md",
  status: "pending",
  objective: "Add parser tests",
  subtasks: [
    { title: "parse numbers", agent: "forge-coder", files: ["src/number.ts", "test/number.test.ts"] },
    { title: "parse strings", agent: null, files: [] },
  ],
}

describe("crew call lines", () => {
  it("a registration says it pends until the user chooses, and every subtask it declares with its worker and its files", () => {
    const subtasks = [{ title: "a", agent: "forge-scout", files: ["src/a.ts", 7, "src/b.ts"] }, { title: "b", files: "src/c.ts" }, { agent: "x" }]
    expect(crewCallFields("crew_begin", { objective: "o", subtasks }, undefined)).toEqual({
      declared: "2 subtasks",
      decide: "register: the crew pends until you choose",
      "subtask 1": "a (forge-scout), owns src/a.ts, src/b.ts",
      "subtask 2": "b (any forge-* worker)",
    })
    expect(crewCallFields("crew_begin", { objective: "o", subtasks: [{ title: "a" }] }, undefined).declared).toBe("1 subtask")
    // A second registration beside a live crew is about the new one: the live crew is not drawn.
    expect(crewCallFields("crew_begin", { objective: "o", subtasks: [{ title: "a" }] }, crew)).not.toHaveProperty("path")
    const bornArmed = crewCallFields("crew_begin", { objective: "o", subtasks: [{ title: "a" }], execution: "waves" }, undefined)
    expect(bornArmed).toMatchObject({ decide: "register, born armed", "subtask 1": "a (any forge-* worker)" })
    expect(bornArmed.closes).toMatch(/^closes when you allow crew_close with one PASS\/FAIL verdict/)
  })

  it("an arm names the live crew as it stood at the call, every subtask with its worker, and the close rule", () => {
    expect(crewCallFields("crew_begin", { execution: "waves" }, crew)).toEqual({
      crew: "Add parser tests",
      path: crew.crewPath,
      "at call": "pending",
      declared: "2 subtasks",
      decide: "arm: run the crew's subtasks in supervised waves",
      "subtask 1": "parse numbers (forge-coder), owns src/number.ts, test/number.test.ts",
      "subtask 2": "parse strings (any forge-* worker)",
      closes: expect.stringContaining("per subtask"),
    })
    const conversion = crewCallFields("crew_begin", { execution: "goal" }, crew)
    expect(conversion.decide).toBe("convert the crew to a goal")
    expect(conversion.closes).toBeUndefined()
  })

  it("a close lists every verdict with its evidence; an abandon its reason", () => {
    const report = [
      { subtask: "parse numbers", verdict: "PASS", evidence: "12 tests green" },
      { subtask: "parse strings", verdict: "FAIL", evidence: "escapes", failures: ["x", "y"] },
    ]
    expect(crewCallFields("crew_close", { report }, { ...crew, status: "executing" })).toEqual({
      crew: "Add parser tests",
      path: crew.crewPath,
      "at call": "executing",
      declared: "2 subtasks",
      decide: "close with verdicts",
      "verdict 1": "PASS parse numbers — 12 tests green",
      "verdict 2": "FAIL parse strings — escapes",
    })
    expect(crewCallFields("crew_close", { abandon: true, reason: "wrong split" }, crew)).toEqual({
      crew: "Add parser tests",
      path: crew.crewPath,
      "at call": "pending",
      declared: "2 subtasks",
      decide: "abandon (no verdicts)",
      reason: "wrong split",
    })
  })

  it("garbage arguments draw what they can and never throw", () => {
    expect(crewCallFields("crew_close", "garbage", undefined)).toEqual({ decide: "close with verdicts" })
    expect(crewCallFields("crew_close", { report: [null, 3] }, undefined)).toEqual({ decide: "close with verdicts" })
  })
})
