import { describe, expect, it } from "vitest"
import { type StatusReport, detailOf, statusText } from "../../../src/cli.status"

// `forgecharts status`: where each instance stands, read from its record's context, and what a damaged record gives.

describe("detailOf", () => {
  it("says where each kind of lifecycle stands", () => {
    const tasks = [
      { number: 1, ticked: true },
      { number: 2, ticked: false },
    ]
    expect(detailOf("plan", { context: { tasks } })).toBe("tasks 1/2 ticked")
    expect(detailOf("goal", { context: { turnsUsed: 3, limits: { maxTurns: 25 }, revision: 2, audit: null } })).toBe("turn 3/25, revision 2")
    const audit = { rounds: 1, last: { outcome: "dirty" }, findings: [{ severity: "bug" }, { severity: "warning" }] }
    expect(detailOf("goal", { context: { turnsUsed: 0, limits: { maxTurns: 5 }, revision: 1, audit } })).toBe(
      "turn 0/5, revision 1, audit 1 dirty (1 bug open)",
    )
    expect(detailOf("crew", { context: { subtasks: [{}, {}, {}] } })).toBe("3 subtasks")
    const loop = { sections: [{}, {}], sectionIndex: 1, phase: "auditing", findings: [{ severity: "bug" }, { severity: "bug" }] }
    expect(detailOf("loop", { context: loop })).toBe("section 2/2, auditing, 2 bugs open")
    expect(detailOf("job", { context: { command: "npm   test", exitCode: 1 } })).toBe("`npm test`, exit code 1")
    expect(detailOf("job", { context: { command: "x".repeat(80), exitCode: null } })).toBe(`\`${"x".repeat(59)}…\``)
    expect(detailOf("watchdog", { context: {} })).toBeNull()
  })

  it("gives what a damaged or older record has, and never throws", () => {
    expect(detailOf("plan", null)).toBe("tasks 0/0 ticked")
    expect(detailOf("goal", { context: "garbage" })).toBe("turn ?/?, revision ?")
    expect(detailOf("loop", { context: { sections: "no", findings: 7 } })).toBe("section 1/0, 0 bugs open")
    expect(detailOf("job", { context: { command: 5 } })).toBeNull()
  })
})

describe("statusText", () => {
  it("prints each instance with where it stands, then who drives it", () => {
    const report: StatusReport = {
      sandbox: { starts: true, bwrap: "/usr/bin/bwrap", problem: null },
      workspace: "/w",
      database: "/w/.opencode/forge/forge.db",
      instances: [
        {
          machine: "plan",
          state: "approved",
          final: false,
          instance: ".opencode/plan/p.md",
          session: "s1",
          updatedAt: "2026-12-05T08:00:00.000Z",
          driver: null,
          detail: "tasks 1/2 ticked",
        },
        {
          machine: "loop",
          state: "running.coding.working",
          final: false,
          instance: "l",
          session: "s1",
          updatedAt: "2026-12-05T08:00:00.000Z",
          driver: "driven by opencode process 7",
          detail: "section 1/2, coding, 0 bugs open",
        },
      ],
      damaged: [],
    }
    expect(statusText(report).split("\n")).toEqual([
      "loop sandbox: bubblewrap starts here (/usr/bin/bwrap)",
      "plan\tapproved\t.opencode/plan/p.md\tsession=s1\t2026-12-05T08:00:00.000Z\ttasks 1/2 ticked",
      "loop\trunning.coding.working\tl\tsession=s1\t2026-12-05T08:00:00.000Z\tsection 1/2, coding, 0 bugs open\tdriven by opencode process 7",
      "",
    ])
  })
})
