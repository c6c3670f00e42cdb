import { describe, expect, it } from "vitest"
import {
  type CrewSubtask,
  type CrewVerdict,
  FAIL_REPORTS_REQUIRED,
  declaredPlanProblems,
  isCompleteReport,
  reportCoverage,
  subtaskKey,
} from "../../../machines/crew/crew.gates"

const subtask = (title: string, agent: string | null = null, files: string[] = []): CrewSubtask => ({ title, agent, files })
const pass = (name: string, evidence = "it works"): CrewVerdict => ({ subtask: name, verdict: "PASS", evidence, failures: [] })
const fail = (name: string, failures: string[]): CrewVerdict => ({ subtask: name, verdict: "FAIL", evidence: "broken", failures })
const empty = { missing: [], undeclared: [], repeated: [], withoutEvidence: [], failsWithoutReports: [] }

describe("subtaskKey", () => {
  it("ignores case, surrounding whitespace and runs of inner whitespace", () => {
    expect(subtaskKey("  Write   the\tParser \n")).toBe("write the parser")
    expect(subtaskKey("Write the parser")).toBe(subtaskKey("write  THE parser"))
  })

  it("keeps punctuation and distinct words apart", () => {
    expect(subtaskKey("write-the parser")).not.toBe(subtaskKey("write the parser"))
    expect(subtaskKey("")).toBe("")
    expect(subtaskKey(" \t ")).toBe("")
  })
})

describe("declaredPlanProblems", () => {
  it("accepts unique titled subtasks", () => {
    expect(declaredPlanProblems([subtask("Write the parser", "forge-coder"), subtask("Survey prior art")])).toEqual([])
  })

  it("refuses an empty plan", () => {
    expect(declaredPlanProblems([])).toEqual(["the crew declares no subtask: give each piece of work one titled subtask"])
  })

  it("names empty titles and repeats by their position (repeats compare as subtaskKey does)", () => {
    expect(declaredPlanProblems([subtask("A"), subtask("  "), subtask("a"), subtask("B"), subtask(" b  ")])).toEqual([
      "subtask 2 has an empty title",
      'subtask 3 repeats the title "a" (titles must be unique)',
      'subtask 5 repeats the title "b" (titles must be unique)',
    ])
  })

  it("two empty titles are two empty titles, not a repeat", () => {
    expect(declaredPlanProblems([subtask(""), subtask(" ")])).toEqual(["subtask 1 has an empty title", "subtask 2 has an empty title"])
  })
})

describe("reportCoverage", () => {
  const declared = [subtask("Write the parser"), subtask("Survey prior art"), subtask("Update docs")]

  it("a report with one evidenced verdict per declared subtask covers the plan (titles matched by subtaskKey)", () => {
    const report = [pass("write the  PARSER"), fail("Survey prior art", ["first", "retry"]), pass("Update docs ")]
    expect(reportCoverage(declared, report)).toEqual(empty)
    expect(isCompleteReport(declared, report)).toBe(true)
  })

  it("names missing subtasks by their declared title", () => {
    const c = reportCoverage(declared, [pass("write the parser")])
    expect(c).toEqual({ ...empty, missing: ["Survey prior art", "Update docs"] })
  })

  it("names undeclared lines as reported, and does not count them against the plan", () => {
    const c = reportCoverage(declared, [pass("Write the parser"), pass("Survey prior art"), pass("Update docs"), pass("Refactor lexer", "")])
    expect(c).toEqual({ ...empty, undeclared: ["Refactor lexer"] })
  })

  it("names a subtask given more than one verdict once, by its declared title", () => {
    const c = reportCoverage(declared, [
      pass("Write the parser"),
      pass("write the parser"),
      pass("WRITE the parser"),
      pass("Survey prior art"),
      pass("Update docs"),
    ])
    expect(c).toEqual({ ...empty, repeated: ["Write the parser"] })
  })

  it("names verdicts without evidence (blank counts as none)", () => {
    const c = reportCoverage(declared, [pass("Write the parser", ""), pass("Survey prior art", " \n "), pass("Update docs")])
    expect(c).toEqual({ ...empty, withoutEvidence: ["Write the parser", "Survey prior art"] })
  })

  it(`names a FAIL with fewer than ${FAIL_REPORTS_REQUIRED} non-blank failure reports; a PASS needs none`, () => {
    expect(FAIL_REPORTS_REQUIRED).toBe(2)
    const c = reportCoverage(declared, [fail("Write the parser", []), fail("Survey prior art", ["first", "  "]), fail("Update docs", ["first", "retry"])])
    expect(c).toEqual({ ...empty, failsWithoutReports: ["Write the parser", "Survey prior art"] })
  })

  it("an empty report misses everything", () => {
    expect(reportCoverage(declared, [])).toEqual({ ...empty, missing: ["Write the parser", "Survey prior art", "Update docs"] })
    expect(isCompleteReport(declared, [])).toBe(false)
  })

  it.each([
    ["missing", [pass("Write the parser"), pass("Survey prior art")]],
    ["undeclared", [pass("Write the parser"), pass("Survey prior art"), pass("Update docs"), pass("Extra")]],
    ["repeated", [pass("Write the parser"), pass("Survey prior art"), pass("Update docs"), pass("update docs")]],
    ["without evidence", [pass("Write the parser", ""), pass("Survey prior art"), pass("Update docs")]],
    ["FAIL without both reports", [pass("Write the parser"), fail("Survey prior art", ["one"]), pass("Update docs")]],
  ] as const)("isCompleteReport is false when anything is %s", (_, report) => {
    expect(isCompleteReport(declared, [...report])).toBe(false)
  })
})
