import { describe, expect, it } from "vitest"
import { crewCallFields } from "../../../adapters/opencode/crew/crew.screen"

// What a crew call's TUI line says beside the model's arguments: the crew it acts on and what the dialog below it
// decides (the line is all the TUI shows of a plugin tool's dialog).

const crew = { crewPath: ".opencode/crew/2026-12-02-parser-tests.md", status: "pending", objective: "Add parser tests", subtasks: 2 }

describe("crew call lines", () => {
  it("a registration says it pends until the user chooses, and how many subtasks it declares", () => {
    expect(crewCallFields("crew_begin", { objective: "o", subtasks: [{ title: "a" }, { title: "b" }] }, undefined)).toEqual({
      declared: "2 subtasks",
      decide: "register: the crew pends until you choose",
    })
    // A second registration beside a live crew is about the new one: the live crew is not drawn.
    expect(crewCallFields("crew_begin", { objective: "o", subtasks: [{ title: "a" }] }, crew)).not.toHaveProperty("path")
    expect(crewCallFields("crew_begin", { objective: "o", subtasks: [{ title: "a" }], execution: "waves" }, undefined).decide).toBe("register, born armed")
  })

  it("an arm or a conversion names the live crew and what the dialog decides", () => {
    expect(crewCallFields("crew_begin", { execution: "waves" }, crew)).toEqual({
      crew: "Add parser tests",
      path: crew.crewPath,
      status: "pending",
      declared: "2 subtasks",
      decide: "arm: run the crew's subtasks in supervised waves",
    })
    expect(crewCallFields("crew_begin", { execution: "goal" }, crew).decide).toBe("convert the crew to a goal")
  })

  it("a close lists every verdict with its evidence; an abandon its reason", () => {
    const report = [
      { subtask: "parse numbers", verdict: "PASS", evidence: "12 tests green" },
      { subtask: "parse strings", verdict: "FAIL", evidence: "escapes", failures: ["x", "y"] },
    ]
    expect(crewCallFields("crew_close", { report }, { ...crew, status: "executing" })).toEqual({
      crew: "Add parser tests",
      path: crew.crewPath,
      status: "executing",
      declared: "2 subtasks",
      decide: "close with verdicts",
      "verdict 1": "PASS parse numbers — 12 tests green",
      "verdict 2": "FAIL parse strings — escapes",
    })
    expect(crewCallFields("crew_close", { abandon: true, reason: "wrong split" }, crew)).toEqual({
      crew: "Add parser tests",
      path: crew.crewPath,
      status: "pending",
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
