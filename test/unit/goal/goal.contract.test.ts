import { describe, expect, it } from "vitest"
import { CHECK_TIMEOUT_DEFAULT_S, MAX_MINUTES_DEFAULT, MAX_TURNS_DEFAULT, parseGoalContract, termsOf } from "../../../services/goal/goal.contract"

// /goal's contract markers: a real shell tokenizer for quotes and escapes, strict markers, defaults and ceilings, and
// an error naming the marker and the value for every mistake.

describe("parseGoalContract", () => {
  it("reads the objective and every marker, quotes and escapes included, in the order written", () => {
    const contract = parseGoalContract(
      `fix the login timeout --check "npm test" --timeout 30 --contains 'src/a.ts::TIMEOUT = 40' --check "npm run lint" ` +
        `--success "sessions survive 40 s" --constraint "no new dependency" --non-goal "the UI" --max-turns 10 ` +
        `--max-minutes 90 --max-cost 2.50 --max-tokens 500000 and keep it small`,
    )
    expect(contract).toEqual({
      objective: "fix the login timeout and keep it small",
      checks: [
        { kind: "command", command: "npm test", timeoutS: 30 },
        { kind: "contains", file: "src/a.ts", text: "TIMEOUT = 40" },
        { kind: "command", command: "npm run lint", timeoutS: CHECK_TIMEOUT_DEFAULT_S },
      ],
      success: ["sessions survive 40 s"],
      constraints: ["no new dependency"],
      nonGoals: ["the UI"],
      budgets: { maxTurns: 10, maxMinutes: 90, maxCost: 2.5, maxTokens: 500000 },
    })
    expect(parseGoalContract(`say \\"hi\\" --contains "a b.txt::x::y"`)).toMatchObject({
      objective: 'say "hi"',
      checks: [{ kind: "contains", file: "a b.txt", text: "x::y" }],
    })
  })

  it("fills the defaults: no budget for cost and tokens, 25 turns and 60 minutes", () => {
    expect(parseGoalContract("ship it")).toEqual({
      objective: "ship it",
      checks: [],
      success: [],
      constraints: [],
      nonGoals: [],
      budgets: { maxTurns: MAX_TURNS_DEFAULT, maxMinutes: MAX_MINUTES_DEFAULT },
    })
  })

  it("reads --audit anywhere on the line, and keeps it out of the terms the machine keeps", () => {
    const contract = parseGoalContract(`fix the login --audit --check "npm test"`)
    expect(contract).toMatchObject({ objective: "fix the login", audit: true, checks: [{ command: "npm test" }] })
    expect(termsOf(contract)).not.toHaveProperty("audit")
    expect(parseGoalContract("fix the login")).not.toHaveProperty("audit")
    expect(() => parseGoalContract("x --audit=yes")).toThrow(/^\/goal: Option '--audit' does not take an argument/)
  })

  it("names what is wrong and where", () => {
    const refusal = (raw: string) => () => parseGoalContract(raw)
    expect(refusal(`fix "the bug`)).toThrow(/^\/goal: the arguments cannot be read \(.*quoted string\): close every quote.*in: fix "the bug$/)
    expect(refusal("don't break it")).toThrow(/escape a lone quote or apostrophe with \\/)
    expect(refusal("x --chek ls")).toThrow(/^\/goal: Unknown option '--chek'.*Markers: --check, --timeout/)
    expect(refusal("x --check")).toThrow(/^\/goal: Option '--check <value>' argument missing/)
    expect(refusal(`x --contains "src/a.ts"`)).toThrow('/goal: --contains "src/a.ts" needs "file::text"')
    expect(refusal(`x --contains "::text"`)).toThrow("needs both a file and a text")
    expect(refusal("x --timeout 30")).toThrow("/goal: --timeout 30 must follow the --check it limits")
    expect(refusal(`x --check ls --timeout 601`)).toThrow("/goal: --timeout 601 exceeds the ceiling of 600")
    expect(refusal("x --max-turns 201")).toThrow("/goal: --max-turns 201 exceeds the ceiling of 200")
    expect(refusal("x --max-minutes 481")).toThrow("/goal: --max-minutes 481 exceeds the ceiling of 480")
    expect(refusal("x --max-turns 0")).toThrow("/goal: --max-turns 0 must be a whole number of at least 1")
    expect(refusal("x --max-turns ten")).toThrow("/goal: --max-turns ten must be a whole number of at least 1")
    expect(refusal("x --max-cost -1")).toThrow(/^\/goal: Option '--max-cost' argument is ambiguous\. Did you forget .* Markers: /)
    expect(refusal("x --max-cost 0")).toThrow("/goal: --max-cost 0 must be a positive amount (e.g. 2.50)")
    expect(refusal(`x --check "  "`)).toThrow("/goal: --check is empty")
    expect(refusal(`--check "npm test"`)).toThrow(/^\/goal: the objective is missing/)
  })
})
