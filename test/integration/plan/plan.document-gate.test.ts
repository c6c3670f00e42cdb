import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { parsePlanDocument } from "../../../services/plan/plan.document"
import type { ComposedRuntime } from "../../../src/runtime"
import { PASSING_CHECKS, PLAN_BODY, allow, memoryLogger, openRuntime, reject, tempWorkspace } from "./plan.helpers"
import { transitionsOf } from "./plan.tools.helpers"

// Issue 23 §1b: once a plan is approved, writes are open, so the model can set `status: done` in the document itself.
// A document change that would pass a gate the user holds (draft → approved, approved → done) is held, pending the
// user's dialog; a change that only tightens is followed at once.

describe("a document change that would pass a user-held gate is held, not followed", () => {
  let ws: ReturnType<typeof tempWorkspace>
  let rt: ComposedRuntime
  beforeEach(async () => {
    ws = tempWorkspace()
    rt = await openRuntime(ws.dir, ws.clock, memoryLogger())
  })
  afterEach(async () => {
    await rt.close()
    ws.cleanup()
  })
  const handEdit = (planPath: string, from: string, to: string) => {
    const file = path.join(ws.dir, planPath)
    const text = readFileSync(file, "utf8")
    expect(text).toContain(from)
    writeFileSync(file, text.replace(from, to))
  }
  const documentStatus = (planPath: string) => parsePlanDocument(readFileSync(path.join(ws.dir, planPath), "utf8"), planPath).frontmatter.status

  it("approved → status: done in the document keeps the plan approved; tools name the pending change; the close dialog closes it", async () => {
    const { planPath } = await rt.plans.write("s1", PLAN_BODY)
    await rt.plans.approve("s1", allow)
    handEdit(planPath, "status: approved", "status: done")
    expect(await rt.plans.gate("s1", "bash")).toBeNull()
    expect(rt.registry.snapshot(planPath)?.value).toEqual({ approved: "working" })
    expect(rt.plans.liveFor("s1")).toBe(planPath)
    expect((await transitionsOf(rt, planPath)).at(-1)).toBe("approved.working|plan.document.changed|approved.working")
    const ticked = await rt.plans.tick("s1", 1)
    expect(ticked.output).toContain(`The document of plan ${planPath} says status: done, but the plan stays approved`)
    expect(ticked.output).toContain("/plan confirm")
    expect(ticked.output).toContain("plan_close")
    expect(await rt.plans.pendingDocumentOf("s1")).toEqual({ planPath, status: "approved", pending: "done" })
    await rt.plans.tick("s1", 2)
    // A rejected close dialog keeps it approved, still pending.
    const rejected = await rt.plans.close("s1", PASSING_CHECKS, reject)
    expect(rejected.output).toContain("says status: done")
    expect(rt.registry.snapshot(planPath)?.value).toEqual({ approved: "working" })
    await rt.plans.close("s1", PASSING_CHECKS, allow)
    expect(rt.registry.snapshot(planPath)?.value).toBe("done")
    expect(documentStatus(planPath)).toBe("done")
  })

  it("draft → status: approved in the document keeps the draft's write-ban, and the refusal names the pending change", async () => {
    const { planPath } = await rt.plans.write("s1", PLAN_BODY)
    handEdit(planPath, "status: draft", "status: approved")
    const refusal = await rt.plans.gate("s1", "edit")
    expect(refusal).toContain("draft write-ban")
    expect(refusal).toContain("says status: approved, but the plan stays draft")
    expect(rt.registry.snapshot(planPath)?.context.pendingDocument).toBe("approved")
    await rt.plans.approve("s1", allow)
    expect(rt.registry.snapshot(planPath)?.value).toEqual({ approved: "working" })
    expect(rt.registry.snapshot(planPath)?.context.pendingDocument).toBeNull()
    expect(await rt.plans.gate("s1", "edit")).toBeNull()
  })

  it("draft → status: done is held too (it would pass both gates)", async () => {
    const { planPath } = await rt.plans.write("s1", PLAN_BODY)
    handEdit(planPath, "status: draft", "status: done")
    expect(await rt.plans.gate("s1", "bash")).toContain("says status: done, but the plan stays draft")
    expect(rt.registry.snapshot(planPath)?.value).toEqual({ draft: "editing" })
  })

  it("a document that says the plan's own status again drops the pending change", async () => {
    const { planPath } = await rt.plans.write("s1", PLAN_BODY)
    await rt.plans.approve("s1", allow)
    handEdit(planPath, "status: approved", "status: done")
    await rt.plans.gate("s1", "bash")
    handEdit(planPath, "status: done", "status: approved")
    await rt.plans.gate("s1", "bash")
    expect(rt.registry.snapshot(planPath)?.context.pendingDocument).toBeNull()
    expect((await rt.plans.tick("s1", 1)).output).not.toContain("/plan confirm")
  })

  it("a change that tightens is still followed at once, and drops a held one (done held, then draft)", async () => {
    const { planPath } = await rt.plans.write("s1", PLAN_BODY)
    await rt.plans.approve("s1", allow)
    handEdit(planPath, "status: approved", "status: done")
    await rt.plans.gate("s1", "bash")
    handEdit(planPath, "status: done", "status: draft")
    expect(await rt.plans.gate("s1", "bash")).toContain("draft write-ban")
    expect(rt.registry.snapshot(planPath)?.context.pendingDocument).toBeNull()
    expect((await transitionsOf(rt, planPath)).at(-1)).toBe("approved.working|document.reconcile|draft.editing")
  })

  it("tasks ticked by hand beside a held status are followed", async () => {
    const { planPath } = await rt.plans.write("s1", PLAN_BODY)
    await rt.plans.approve("s1", allow)
    handEdit(planPath, "status: approved", "status: done")
    handEdit(planPath, "- [ ] 1.", "- [x] 1.")
    await rt.plans.gate("s1", "bash")
    const snapshot = rt.registry.snapshot(planPath)
    expect(snapshot?.value).toEqual({ approved: "working" })
    expect(snapshot?.context.tasks).toEqual([
      { number: 1, ticked: true },
      { number: 2, ticked: false },
    ])
  })

  it("a held change survives a restart: the restore does not follow it either", async () => {
    const { planPath } = await rt.plans.write("s1", PLAN_BODY)
    await rt.plans.approve("s1", allow)
    await rt.close()
    ws.clock.advance(1000)
    handEdit(planPath, "status: approved", "status: done")
    rt = await openRuntime(ws.dir, ws.clock, memoryLogger())
    expect(rt.registry.snapshot(planPath)?.value).toEqual({ approved: "working" })
    expect(rt.registry.snapshot(planPath)?.context.pendingDocument).toBe("done")
    expect(rt.plans.liveFor("s1")).toBe(planPath)
  })
})
