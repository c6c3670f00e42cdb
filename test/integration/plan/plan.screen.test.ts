import { describe, expect, it } from "vitest"
import type { PLAN_TOOL_IDS } from "../../../adapters/opencode/plan/plan.tools"
import { PASSING_CHECKS, PLAN_BODY, useRuntime } from "./plan.helpers"
import { type DialogLog, planTools, toolContext } from "./plan.tools.helpers"

// What clients other than the TUI show of a plan tool (web, desktop, the SDK): each answer's title says what
// happened, its metadata is the plan as it now stands; and what "Allow always" on a plan dialog would remember.

describe("plan tools answer with a title and the plan as metadata", () => {
  const live = useRuntime()
  const dialogs = (answer = true): DialogLog => ({ asked: [], answer, always: [] })
  const call = async (tool: (typeof PLAN_TOOL_IDS)[number], raw: Record<string, unknown>, log = dialogs()) => {
    const result = await planTools(live.rt)[tool].execute(raw as never, toolContext("s1", log))
    if (typeof result === "string") throw new Error("a plan tool answers with a title and metadata, not a bare string")
    return result
  }

  it("from plan_write to plan_close: titles, counts and statuses follow the plan", async () => {
    const written = await call("plan_write", { content: PLAN_BODY })
    expect(written.title).toMatch(/^Plan created: \.opencode\/plan\/\d{4}-\d\d-\d\d-fix-login-timeout\.md$/)
    const planPath = String(written.metadata?.path)
    expect(written.metadata).toEqual({ plan: "Fix login timeout", path: planPath, status: "draft", tasks: "0/2 ticked", criteria: 2 })
    const log = dialogs()
    const approved = await call("plan_approve", {}, log)
    expect(approved.title).toBe(`Plan approved: ${planPath}`)
    expect(approved.metadata).toMatchObject({ status: "approved" })
    // "Allow always" covers this plan alone: its path is the only pattern, asked and remembered.
    expect(log.asked).toEqual([{ permission: "plan_approve", patterns: [planPath] }])
    expect(log.always).toEqual([[planPath]])
    for (const task of [1, 2]) {
      const ticked = await call("plan_tick", { task })
      expect(ticked.title).toBe(`Ticked task ${task} of ${planPath}`)
      expect(ticked.metadata).toMatchObject({ tasks: `${task}/2 ticked` })
    }
    const closing = dialogs()
    const closed = await call("plan_close", { checks: PASSING_CHECKS }, closing)
    expect(closed.title).toBe(`Plan closed: ${planPath} is done`)
    expect(closed.metadata).toMatchObject({ status: "done", tasks: "2/2 ticked" })
    expect(closing.always).toEqual([[planPath]])
  })

  it("a rejected approval says so in its title, and the plan stays a draft", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    const result = await call("plan_approve", {}, dialogs(false))
    expect(result.title).toBe(`The user did not approve ${planPath}`)
    expect(result.metadata).toMatchObject({ status: "draft" })
  })
})
