import { describe, expect, it } from "vitest"
import type { PLAN_TOOL_IDS } from "../../../adapters/opencode/plan.tools"
import { PASSING_CHECKS, PLAN_BODY, useRuntime } from "./plan.helpers"
import { type DialogLog, planTools, toolContext } from "./plan.tools.helpers"

// What the user sees of a plan tool in opencode's TUI: the tool's line is drawn from the scalar values of the call's
// input object (see adapters/opencode/tool.screen.ts), and the dialog under it says only "Call tool <key>". So the
// facts of each decision must be on that object while the dialog is open, and "Allow always" must name one plan.

type Raw = Record<string, unknown>

describe("plan tools show what is decided on their line", () => {
  const live = useRuntime()
  const tools = () => planTools(live.rt)
  const call = async (tool: (typeof PLAN_TOOL_IDS)[number], raw: Raw, dialogs: DialogLog, onAsk?: () => void) => {
    const ctx = toolContext("s1", dialogs)
    const ask = ctx.ask
    ctx.ask = async (input) => {
      onAsk?.()
      return ask(input)
    }
    const result = await tools()[tool].execute(raw as never, ctx)
    if (typeof result === "string") throw new Error("a plan tool answers with its line, not a bare string")
    return result
  }
  const dialogs = (): DialogLog => ({ asked: [], answer: true, always: [], titles: [] })

  it("plan_write: the title says a plan was created where, the line names it with its counts", async () => {
    const raw: Raw = { content: PLAN_BODY }
    const result = await call("plan_write", raw, dialogs())
    expect(result.title).toMatch(/^Plan created: \.opencode\/plan\/\d{4}-\d\d-\d\d-fix-login-timeout\.md$/)
    expect(raw).toMatchObject({ plan: "Fix login timeout", status: "draft", tasks: "0/2 ticked", criteria: 2 })
    expect(raw.path).toBe(result.metadata?.path)
    // The plan's text is kept whole, after the fields: the line starts with what happened.
    expect(Object.keys(raw)).toEqual(["plan", "path", "status", "tasks", "criteria", "content"])
    expect(raw.content).toBe(PLAN_BODY)
  })

  it("plan_approve: while the dialog is open the line names the plan, its path and counts; Allow always covers that plan alone", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    const raw: Raw = {}
    let atAsk: Raw = {}
    const log = dialogs()
    const result = await call("plan_approve", raw, log, () => {
      atAsk = { ...raw }
    })
    expect(atAsk).toEqual({ plan: "Fix login timeout", path: planPath, tasks: 2, criteria: 2 })
    expect(log.always).toEqual([[planPath]])
    expect(log.asked).toEqual([{ permission: "plan_approve", patterns: [planPath] }])
    expect(log.titles?.[0]).toMatch(/^Approve plan "Fix login timeout" \(2 tasks, 2 acceptance criteria\)\?/)
    expect(result.title).toBe(`Plan approved: ${planPath}`)
    // After the dialog the line is the plan as it now stands; the dialog's facts do not linger.
    expect(raw).toEqual({ plan: "Fix login timeout", path: planPath, status: "approved", tasks: "0/2 ticked", criteria: 2 })
  })

  it("plan_approve rejected: the title says so and the plan stays a draft on the line", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    const raw: Raw = {}
    const result = await call("plan_approve", raw, { ...dialogs(), answer: false })
    expect(result.title).toBe(`The user did not approve ${planPath}`)
    expect(raw).toMatchObject({ status: "draft" })
  })

  it("plan_tick and plan_close: the tick count moves, and the close dialog shows every criterion with its evidence", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    await live.rt.plans.approve("s1", async () => true)
    for (const task of [1, 2]) {
      const raw: Raw = { task }
      const result = await call("plan_tick", raw, dialogs())
      expect(result.title).toBe(`Ticked task ${task} of ${planPath}`)
      expect(raw).toMatchObject({ task, tasks: `${task}/2 ticked` })
    }
    const raw: Raw = { checks: PASSING_CHECKS }
    let atAsk: Raw = {}
    const log = dialogs()
    const result = await call("plan_close", raw, log, () => {
      atAsk = { ...raw }
    })
    expect(atAsk).toEqual({
      checks: PASSING_CHECKS,
      plan: "Fix login timeout",
      path: planPath,
      tasks: "2/2 ticked",
      "PASS 1": "Login succeeds after 40 s of idle — test/login.test.ts passes",
      "PASS 2": "The suite is green — npm test: 12 passed",
    })
    expect(log.always).toEqual([[planPath]])
    expect(result.title).toBe(`Plan closed: ${planPath} is done`)
    expect(raw).toMatchObject({ status: "done" })
  })
})
