import { readFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { parsePlanDocument } from "../../../services/plan/plan.document"
import { PASSING_CHECKS, PLAN_BODY, allow, openRuntime, reject, useRuntime } from "./plan.helpers"

describe("plan service over a real workspace and database", () => {
  const live = useRuntime()
  const doc = (planPath: string) => parsePlanDocument(readFileSync(path.join(live.ws.dir, planPath), "utf8"), planPath)

  it("walks draft → approved → done, writing the document at every step", async () => {
    const { planPath, output } = await live.rt.plans.write("s1", PLAN_BODY)
    expect(planPath).toBe(".opencode/plan/2026-11-30-fix-login-timeout.md")
    expect(output).toContain("Plan created: .opencode/plan/2026-11-30-fix-login-timeout.md")
    expect(doc(planPath).frontmatter.status).toBe("draft")
    expect(await live.rt.plans.gate("s1", "bash")).toContain("draft write-ban")
    expect(await live.rt.plans.gate("s1", "forge_shell")).toContain(planPath)
    expect(await live.rt.plans.gate("s1", "read")).toBeNull()
    expect(await live.rt.plans.gate("s2", "bash")).toBeNull()

    await live.rt.plans.approve("s1", allow)
    expect(doc(planPath).frontmatter.status).toBe("approved")
    expect(await live.rt.plans.gate("s1", "bash")).toBeNull()

    await expect(live.rt.plans.close("s1", PASSING_CHECKS, allow)).rejects.toThrow(/tasks not ticked: 1, 2/)
    await live.rt.plans.tick("s1", 1)
    await live.rt.plans.tick("s1", 2)
    expect(doc(planPath).tasks.every((t) => t.ticked)).toBe(true)
    await live.rt.plans.close("s1", PASSING_CHECKS, allow)
    const closed = doc(planPath)
    expect(closed.frontmatter.status).toBe("done")
    expect(closed.text).toContain("PASS")
    expect(live.rt.plans.liveFor("s1")).toBeUndefined()

    const log = await live.rt.repository.listTransitions({ instanceId: planPath })
    expect(log.map((t) => `${t.from}|${t.event}|${t.to}`)).toEqual([
      "(none)|xstate.init|draft.editing",
      "draft.editing|plan.approve|draft.confirming",
      "draft.confirming|dialog.allow|approved.working",
      "approved.working|plan.tick|approved.working",
      "approved.working|plan.tick|approved.working",
      "approved.working|plan.close|approved.confirming",
      "approved.confirming|dialog.allow|done",
    ])
  })

  it("plan_write on a live draft revises it in place, plan_edit reports the touched section", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    const revised = await live.rt.plans.write(
      "s1",
      PLAN_BODY.replace("- [ ] 2. Raise the timeout", "- [ ] 2. Raise the timeout\n- [ ] 3. Document it"),
      "Login timeout",
    )
    expect(revised.planPath).toBe(planPath)
    expect(revised.output).toContain(`Plan revised: ${planPath}`)
    expect(doc(planPath).frontmatter.title).toBe("Login timeout")
    expect(doc(planPath).tasks.map((t) => t.number)).toEqual([1, 2, 3])
    const edited = await live.rt.plans.edit("s1", "Document it", "Document it in CHANGELOG.md")
    expect(edited.output).toMatch(/^Replaced 1 occurrence\(s\)\./)
    expect(doc(planPath).tasks[2]?.text).toBe("Document it in CHANGELOG.md")
    expect(live.rt.registry.snapshot(planPath)?.context.tasks).toHaveLength(3)
    await live.rt.plans.approve("s1", allow)
    await expect(live.rt.plans.write("s1", PLAN_BODY)).rejects.toThrow(/is approved: only a draft can be rewritten/)
    await expect(live.rt.plans.edit("s1", "Document it", "x")).rejects.toThrow(/only a draft can be rewritten/)
  })

  it("a rejected dialog leaves the plan a draft with the ban in place", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    const outcome = await live.rt.plans.approve("s1", reject)
    expect(outcome.output).toContain("did not approve")
    expect(doc(planPath).frontmatter.status).toBe("draft")
    expect(await live.rt.plans.gate("s1", "write")).not.toBeNull()
  })

  it("survives a restart: the draft and its ban come back", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    await live.rt.close()
    live.rt = await openRuntime(live.ws.dir, live.ws.clock)
    expect(live.rt.restoreReport.restored).toEqual([planPath])
    expect(await live.rt.plans.gate("s1", "edit")).toContain(planPath)
  })

  it("a hand edit of the document wins on restart", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    await live.rt.plans.approve("s1", allow)
    await live.rt.close()
    const file = path.join(live.ws.dir, planPath)
    const { writeFileSync } = await import("node:fs")
    writeFileSync(file, readFileSync(file, "utf8").replace("- [ ] 1.", "- [x] 1."))
    live.rt = await openRuntime(live.ws.dir, live.ws.clock)
    expect(live.rt.restoreReport.reconciled).toEqual([planPath])
    expect(live.rt.registry.snapshot(planPath)?.context.tasks).toEqual([
      { number: 1, ticked: true },
      { number: 2, ticked: false },
    ])
  })
})
