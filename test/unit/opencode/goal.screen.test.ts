import { describe, expect, it } from "vitest"
import { goalCallFields } from "../../../adapters/opencode/goal/goal.screen"
import { CHECK_TIMEOUT_DEFAULT_S, MAX_MINUTES_DEFAULT, MAX_TURNS_DEFAULT, NO_PROGRESS_LIMIT } from "../../../machines/goal/goal.gates"

const goal = {
  goalPath: ".opencode/goal/2026-12-02-green.md",
  status: "active",
  turns: "3/25",
  checks: [
    { kind: "command" as const, command: "npm test", timeoutS: 300 },
    { kind: "contains" as const, file: "CHANGELOG.md", text: "## Unreleased" },
  ],
  run: null,
}

const entry = (item: number, pass: boolean, label: string, detail: string, ms: number) => ({
  at: "2026-12-05T10:02:11.345Z",
  run: "r1",
  revision: 1,
  item,
  pass,
  ms,
  label,
  detail,
})
const passed = {
  id: "r1",
  entries: [entry(1, true, "npm test", "exit code 0", 12_345), entry(2, true, "CHANGELOG.md :: ## Unreleased", "CHANGELOG.md contains the text", 2)],
  showable: true,
  current: true,
}

describe("what a goal call's TUI line shows", () => {
  it("an arm: every criterion, every check with what it expects, the budgets and the stop rule", () => {
    const args = {
      objective: "green",
      success: ["zero failing tests", 7],
      checks: [{ command: "npm test", timeout: 300 }, { command: "npm run lint" }, { file: "CHANGELOG.md", text: "## Unreleased" }, { cmd: "x" }],
      maxTurns: 1,
      maxCost: 2.5,
    }
    expect(goalCallFields("goal_write", args, undefined)).toEqual({
      decide: "arm: the session then works on it by itself",
      "success 1": "zero failing tests",
      "check 1": "`npm test` exits 0 within 300 s",
      "check 2": `\`npm run lint\` exits 0 within ${CHECK_TIMEOUT_DEFAULT_S} s`,
      "check 3": "CHANGELOG.md contains ## Unreleased",
      budgets: `1 turn, ${MAX_MINUTES_DEFAULT} min, $2.5, no token limit`,
      stops: expect.stringContaining(`after ${NO_PROGRESS_LIMIT} turns in a row without progress`),
    })
    expect(goalCallFields("goal_write", { objective: "x" }, undefined).budgets).toBe(
      `${MAX_TURNS_DEFAULT} turns, ${MAX_MINUTES_DEFAULT} min, no cost or token limit`,
    )
    const queued = goalCallFields("goal_write", { ...args, arm: false }, undefined)
    expect(queued.decide).toBe("queue (no dialog)")
    expect(queued.stops).toBeUndefined()
  })

  it("a goal with an audit: its arm says what the audit adds, and its completion that the auditor comes before the dialog", () => {
    expect(goalCallFields("goal_write", { objective: "green", audit: true }, undefined)["audit rule"]).toMatch(/^once the checks pass, an auditor session/)
    expect(goalCallFields("goal_write", { objective: "green" }, undefined)["audit rule"]).toBeUndefined()
    expect(goalCallFields("goal_complete", {}, { ...goal, run: passed, audit: true }).decide).toBe(
      "complete: the host runs every check once more first, then an auditor session reviews the work (read-only); this dialog opens only if each check passes again and the audit leaves no bug open",
    )
  })

  it("a revision names the live goal as it stood at the call, and the budgets it changes", () => {
    expect(goalCallFields("goal_write", { revise: true, checks: [] }, goal)).toEqual({ path: goal.goalPath, "at call": "active at turn 3/25", budgets: "kept" })
    expect(goalCallFields("goal_write", { revise: true, maxTurns: 40, maxTokens: 1000 }, goal).budgets).toBe("40 turns, 1,000 tokens (the others kept)")
  })

  it("a completion: the host's run its dialog decides on, each check with its exit, time and verdict, and every attestation", () => {
    const args = { attestations: [{ criterion: "zero failing tests", evidence: "npm test: 12 passed" }, { criterion: 3 }] }
    expect(goalCallFields("goal_complete", args, { ...goal, run: passed })).toEqual({
      path: goal.goalPath,
      "at call": "active at turn 3/25",
      decide: "complete: the host runs every check once more first, and this dialog opens only if each passes again",
      run: "r1 at 2026-12-05T10:02:11Z: every check passed",
      "ran 1": "`npm test`: exit code 0, 12.3 s, PASS",
      "ran 2": "`CHANGELOG.md :: ## Unreleased`: CHANGELOG.md contains the text, 0.0 s, PASS",
      "ATTEST 1": "zero failing tests — npm test: 12 passed",
    })
    // attempt_completion under the goal shows the same run (its result is the evidence for every criterion).
    expect(goalCallFields("attempt_completion", { result: "done" }, { ...goal, run: passed })).toMatchObject({
      run: "r1 at 2026-12-05T10:02:11Z: every check passed",
      "ran 1": "`npm test`: exit code 0, 12.3 s, PASS",
    })
  })

  it("a completion with no passing run to show opens no dialog: the line says the host runs the checks and the gate refuses the call", () => {
    expect(goalCallFields("goal_complete", {}, goal)).toEqual({
      path: goal.goalPath,
      "at call": "active at turn 3/25",
      decide:
        "no dialog yet: no run of the checks to show; the host runs every check now and the completion gate refuses this call with that run, which the next call's dialog shows",
      "check 1": "`npm test` exits 0 within 300 s",
      "check 2": "CHANGELOG.md contains ## Unreleased",
    })
    const failed = {
      ...passed,
      showable: false,
      entries: [entry(1, true, "npm test", "exit code 0", 12_345), entry(2, false, "CHANGELOG.md :: ## Unreleased", "CHANGELOG.md lacks the text", 3)],
    }
    expect(goalCallFields("goal_complete", {}, { ...goal, run: failed })).toMatchObject({
      decide: expect.stringMatching(/^no dialog yet: the last run is no pass of every check;/),
      run: "r1",
      "ran 2": "`CHANGELOG.md :: ## Unreleased`: CHANGELOG.md lacks the text, 0.0 s, FAIL",
    })
    expect(goalCallFields("goal_complete", {}, { ...goal, run: { ...passed, showable: false, current: false } }).run).toBe(
      "r1 (of an earlier revision of the contract)",
    )
  })

  it("a resume shows the turns used at the call, a discard says so, a pause or check names the goal", () => {
    expect(goalCallFields("goal_resume", { addTurns: 5 }, { ...goal, status: "paused" })).toMatchObject({
      path: goal.goalPath,
      "at call": "paused at turn 3/25",
      decide: "resume: the session works on it by itself again",
    })
    expect(goalCallFields("goal_discard", {}, goal)).toMatchObject({ decide: "discard" })
    expect(goalCallFields("goal_pause", null, goal)).toEqual({ path: goal.goalPath, "at call": "active at turn 3/25" })
    expect(goalCallFields("goal_check", {}, undefined)).toEqual({})
  })
})
