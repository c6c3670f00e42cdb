import { describe, expect, it } from "vitest"
import { initialTransition } from "xstate"
import { goalMachine } from "../../../machines/goal/goal.machine"
import { continuationBrief } from "../../../services/goal/goal.brief"
import { T0, input } from "../machines/goal.fixtures"
import { DOC } from "./goal.fixtures"

describe("the continuation brief", () => {
  const [goal] = initialTransition(goalMachine, input)
  const brief = continuationBrief({ context: goal.context, document: DOC, now: T0 })

  it("carries the contract and the budget left", () => {
    expect(brief).toMatch(/^\[forge:goal-continue\] Goal /)
    expect(brief).toContain(DOC.contract.objective)
    expect(brief).toContain("Budget left: ")
  })

  it("hands the goal's session the crew layer: register armed in one call, close and re-shard without a dialog", () => {
    expect(brief).toContain(
      'You own the crew layer under this goal: for parallel subagent work register a crew with crew_begin {objective, subtasks, execution: "waves"} in one call (born armed)',
    )
    expect(brief).toContain("crew_close {abandon: true, reason}")
    expect(brief).toContain("no dialog, no user turn needed")
  })
})
