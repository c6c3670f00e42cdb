import { readFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { parsePlanDocument } from "../../../services/plan/plan.document"
import { callRaw } from "../opencode/tool.context"
import { PLAN_BODY, allow, useRuntime } from "./plan.helpers"
import { type DialogLog, planTools, toolContext, transitionsOf } from "./plan.tools.helpers"

// Defect 4: the refusal names plan_discard as a way out, so a model that could discard its own draft could lift
// its own write-ban. The model's discard of a draft goes through the user's dialog, like approval.

describe("plan_discard by the model goes through the user while the plan is a draft", () => {
  const live = useRuntime()
  const status = (planPath: string) => parsePlanDocument(readFileSync(path.join(live.ws.dir, planPath), "utf8"), planPath).frontmatter.status

  it("a rejected dialog leaves the draft and its ban in place, and the refusal says both ways out need the user", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    const refusal = await live.rt.plans.gate("s1", "bash")
    expect(refusal).toContain("both need the user")
    expect(refusal).toContain("/plan discard")
    const dialogs: DialogLog = { asked: [], answer: false }
    const output = await callRaw(planTools(live.rt).plan_discard, { reason: "I want to write now" }, toolContext("s1", dialogs))
    expect(dialogs.asked).toEqual([{ permission: "plan_discard", patterns: [planPath] }])
    expect(output).toContain("did not allow discarding")
    expect(status(planPath)).toBe("draft")
    expect(await live.rt.plans.gate("s1", "write")).toContain("draft write-ban")
    expect(await transitionsOf(live.rt, planPath)).toEqual([
      "(none)|xstate.init|draft.editing",
      "draft.editing|plan.discard|draft.discarding",
      "draft.discarding|dialog.reject|draft.editing",
    ])
  })

  it("the user's allow discards (or supersedes) the draft and opens writes", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    const dialogs: DialogLog = { asked: [], answer: true }
    const output = await callRaw(planTools(live.rt).plan_discard, { reason: "crew", supersede: ".opencode/crew/c.md" }, toolContext("s1", dialogs))
    expect(dialogs.asked).toHaveLength(1)
    expect(output).toContain("Plan superseded")
    expect(status(planPath)).toBe("superseded")
    expect(await live.rt.plans.gate("s1", "write")).toBeNull()
    expect((await transitionsOf(live.rt, planPath)).slice(-2)).toEqual([
      "draft.editing|plan.supersede|draft.discarding",
      "draft.discarding|dialog.allow|superseded",
    ])
  })

  it("an approved plan bans nothing: the model discards it without a dialog", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    await live.rt.plans.approve("s1", allow)
    const dialogs: DialogLog = { asked: [], answer: false }
    const output = await callRaw(planTools(live.rt).plan_discard, { reason: "obsolete" }, toolContext("s1", dialogs))
    expect(dialogs.asked).toEqual([])
    expect(output).toContain("Plan discarded")
    expect(status(planPath)).toBe("abandoned")
  })

  it("the user's own /plan discard stays direct, even while the model's discard dialog is open", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    let answer: (allowed: boolean) => void = () => undefined
    let opened: () => void = () => undefined
    const dialogOpen = new Promise<void>((resolve) => (opened = resolve))
    const modelDiscard = live.rt.plans.discard(
      "s1",
      {
        by: "model",
        confirm: () => {
          opened()
          return new Promise<boolean>((r) => (answer = r))
        },
      },
      "model wants out",
    )
    await dialogOpen
    expect(live.rt.registry.snapshot(planPath)?.value).toEqual({ draft: "discarding" })
    expect(await live.rt.plans.gate("s1", "bash")).toContain("draft write-ban")
    await live.rt.plans.discard("s1", { by: "user" }, "discarded by the user with /plan discard")
    expect(status(planPath)).toBe("abandoned")
    answer(true)
    await expect(modelDiscard).rejects.toThrow(/finished plan accepts no further changes/)
  })
})
