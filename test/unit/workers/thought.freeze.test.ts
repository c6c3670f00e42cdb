import { describe, expect, it } from "vitest"
import { THOUGHT_FREEZE_CAPACITY, ThoughtLevelFreeze } from "../../../services/workers/thought.freeze"
import type { ThoughtLevelParams } from "../../../services/workers/thought.level"

const high: ThoughtLevelParams = { options: { reasoningEffort: "high" } }
const low: ThoughtLevelParams = { options: { reasoningEffort: "low" } }

describe("ThoughtLevelFreeze", () => {
  it("decides at a session's first request and reuses that decision after (a forge.json edit does not reach it)", () => {
    const freeze = new ThoughtLevelFreeze()
    let calls = 0
    const first = freeze.paramsFor("s1", () => {
      calls++
      return high
    })
    expect(first).toEqual({ params: high, first: true })
    const later = freeze.paramsFor("s1", () => {
      calls++
      return low // the file changed meanwhile
    })
    expect(later).toEqual({ params: high, first: false })
    expect(calls).toBe(1)
  })

  it("a new session decides afresh", () => {
    const freeze = new ThoughtLevelFreeze()
    freeze.paramsFor("s1", () => high)
    expect(freeze.paramsFor("s2", () => low)).toEqual({ params: low, first: true })
    expect(freeze.size).toBe(2)
  })

  it("keeps the finding with the decision", () => {
    const freeze = new ThoughtLevelFreeze()
    const refused: ThoughtLevelParams = { options: {}, finding: "not offered" }
    freeze.paramsFor("s1", () => refused)
    expect(freeze.paramsFor("s1", () => high).params).toEqual(refused)
  })

  it("hands out copies: mutating what it returned (or what decide returned) never changes the frozen decision", () => {
    const freeze = new ThoughtLevelFreeze()
    const decided: ThoughtLevelParams = { options: { thinking: { type: "enabled", budgetTokens: 8192 } } }
    const first = freeze.paramsFor("s1", () => decided)
    ;(first.params.options.thinking as { budgetTokens: number }).budgetTokens = 1
    ;(decided.options.thinking as { budgetTokens: number }).budgetTokens = 2
    expect(freeze.paramsFor("s1", () => high).params).toEqual({ options: { thinking: { type: "enabled", budgetTokens: 8192 } } })
  })

  it("is bounded: past the capacity the least recently used session is forgotten", () => {
    const freeze = new ThoughtLevelFreeze(2)
    freeze.paramsFor("a", () => high)
    freeze.paramsFor("b", () => high)
    freeze.paramsFor("a", () => low) // a is now the most recent
    freeze.paramsFor("c", () => high)
    expect(freeze.size).toBe(2)
    expect(freeze.has("a")).toBe(true)
    expect(freeze.has("b")).toBe(false)
    expect(freeze.has("c")).toBe(true)
    // A forgotten session simply decides again.
    expect(freeze.paramsFor("b", () => low)).toEqual({ params: low, first: true })
  })

  it("holds 1,000 sessions by default", () => {
    const freeze = new ThoughtLevelFreeze()
    for (let i = 0; i <= THOUGHT_FREEZE_CAPACITY; i++) freeze.paramsFor(`s${i}`, () => high)
    expect(THOUGHT_FREEZE_CAPACITY).toBe(1000)
    expect(freeze.size).toBe(1000)
    expect(freeze.has("s0")).toBe(false)
    expect(freeze.has("s1000")).toBe(true)
  })

  it("forgets a deleted session", () => {
    const freeze = new ThoughtLevelFreeze()
    freeze.paramsFor("s1", () => high)
    freeze.forget("s1")
    expect(freeze.has("s1")).toBe(false)
    expect(freeze.paramsFor("s1", () => low)).toEqual({ params: low, first: true })
  })
})
