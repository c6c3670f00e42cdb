import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { FsGoalFiles } from "../../../adapters/workspace/goal.files"
import { runGoalCommand } from "../../../services/goal/goal.command"
import { parseGoalDocument } from "../../../services/goal/goal.document"
import { defineGoalLifecycle } from "../../../services/goal/goal.lifecycle"
import { GoalService } from "../../../services/goal/goal.service"
import { handDrivenLoop } from "./goal.loop.helpers"
import { allow, memoryLogger, useRuntime } from "../plan/plan.helpers"
import { ONE_CHECK_CONTRACT } from "./goal.contract.fixture"

// Issue 23 §1b for goals: a goal document that says completed (or active, for a paused goal) would pass a gate the
// user holds, so the goal stays where it is, its answers and /goal name the held status, and only the completion
// (or resume) dialog moves it. A document that says paused or abandoned only tightens: the goal follows at once, and
// the loop looks at the document before it decides, so no brief goes out for a goal its document stopped.

function harness(ctx: ReturnType<typeof useRuntime>) {
  const files = new FsGoalFiles(ctx.ws.dir)
  const log = memoryLogger()
  const sent: string[] = []
  const prompter = { send: async (_session: string, text: string) => void sent.push(text) }
  const lifecycle = defineGoalLifecycle(ctx.rt.host, { files, clock: ctx.ws.clock, log, prompter })
  const service = new GoalService({
    lifecycle,
    files,
    clock: ctx.ws.clock,
    log,
    hasDraftPlan: (session) => ctx.rt.plans.hasDraft(session),
    checks: { run: async () => ({ pass: true, summary: "exit code 0", outputTail: "" }) },
  })
  const file = (goalPath: string) => path.join(ctx.ws.dir, goalPath)
  const setStatus = (goalPath: string, status: string) => {
    const text = readFileSync(file(goalPath), "utf8")
    writeFileSync(file(goalPath), text.replace(/^status: .*$/m, `status: ${status}`))
  }
  const documentStatus = (goalPath: string) => parseGoalDocument(readFileSync(file(goalPath), "utf8"), goalPath).frontmatter.status
  /** The goal loop as the plugin wires it (following the document), its timers fired by hand. */
  const loopOf = () => {
    const { loop, fire } = handDrivenLoop({ lifecycle, clock: ctx.ws.clock, log, follow: (goal) => service.followDocument(goal) })
    return { loop, fireDue: () => fire(10_000) }
  }
  return { service, lifecycle, setStatus, documentStatus, sent, loopOf }
}

describe("goal document changes are decided by direction", () => {
  const ctx = useRuntime()

  it("status: completed in the document keeps the goal active; its answers and /goal name it; only the completion dialog completes it", async () => {
    const { service, lifecycle, setStatus, documentStatus } = harness(ctx)
    const { goalPath } = await service.write("s1", ONE_CHECK_CONTRACT, { by: "model", confirm: allow })
    setStatus(goalPath, "completed")
    const overview = await runGoalCommand(service, "s1", "")
    expect(lifecycle.snapshot(goalPath)?.value).toEqual({ active: "working" })
    expect(lifecycle.snapshot(goalPath)?.context.pendingDocument).toBe("completed")
    expect(overview.user).toContain("the document says completed; confirm? /goal confirm (the goal stays active until you do)")
    const confirm = await runGoalCommand(service, "s1", "confirm")
    expect(confirm.model).toContain("Call goal_check, then goal_complete")
    expect(confirm.user).toContain("Confirm in the completion dialog")
    const done = await service.complete("s1", [{ criterion: "zero failing tests", evidence: "npm test: 3 passed" }], allow)
    expect(done.output).toContain("Goal completed")
    expect(documentStatus(goalPath)).toBe("completed")
  })

  it("status: paused in the document pauses the goal at once (it only tightens)", async () => {
    const { service, lifecycle, setStatus } = harness(ctx)
    const { goalPath } = await service.write("s1", ONE_CHECK_CONTRACT, { by: "model", confirm: allow })
    setStatus(goalPath, "paused")
    await runGoalCommand(service, "s1", "")
    expect(lifecycle.snapshot(goalPath)?.value).toEqual({ paused: "stopped" })
    expect(lifecycle.snapshot(goalPath)?.context.stopReason).toBe("user")
  })

  it("status: active in a paused goal's document is held for the resume dialog, and a document back at paused drops it", async () => {
    const { service, lifecycle, setStatus } = harness(ctx)
    const { goalPath } = await service.write("s1", ONE_CHECK_CONTRACT, { by: "model", confirm: allow })
    await service.pause("s1", "user")
    setStatus(goalPath, "active")
    await runGoalCommand(service, "s1", "")
    expect(lifecycle.snapshot(goalPath)?.value).toEqual({ paused: "stopped" })
    expect(lifecycle.snapshot(goalPath)?.context.pendingDocument).toBe("active")
    expect((await runGoalCommand(service, "s1", "confirm")).model).toContain("Call goal_resume now")
    setStatus(goalPath, "paused")
    await runGoalCommand(service, "s1", "")
    expect(lifecycle.snapshot(goalPath)?.context.pendingDocument).toBeNull()
    expect((await runGoalCommand(service, "s1", "confirm")).user).toContain("there is nothing to confirm")
  })

  it("status: abandoned in the document abandons the goal at once, queued, active or paused, and says why", async () => {
    const { service, lifecycle, setStatus, documentStatus } = harness(ctx)
    const queued = (await service.write("s1", ONE_CHECK_CONTRACT, null)).goalPath
    const active = (await service.write("s2", { ...ONE_CHECK_CONTRACT, objective: "ship the release" }, { by: "model", confirm: allow })).goalPath
    const paused = (await service.write("s3", { ...ONE_CHECK_CONTRACT, objective: "write the notes" }, { by: "model", confirm: allow })).goalPath
    await service.pause("s3", "user")
    for (const [session, goalPath] of [
      ["s1", queued],
      ["s2", active],
      ["s3", paused],
    ] as const) {
      setStatus(goalPath, "abandoned")
      await runGoalCommand(service, session, "")
      expect(lifecycle.snapshot(goalPath)?.value, goalPath).toBe("abandoned")
      expect(lifecycle.snapshot(goalPath)?.context.reason).toBe("the goal document says abandoned")
      expect(documentStatus(goalPath)).toBe("abandoned")
    }
  })

  it("the loop follows a hand pause or abandon at its deadline: no brief goes out for a goal its document stopped", async () => {
    const { service, lifecycle, setStatus, sent, loopOf } = harness(ctx)
    const { loop, fireDue } = loopOf()
    const { goalPath } = await service.write("s1", ONE_CHECK_CONTRACT, { by: "user" })
    await loop.sessionIdle("s1")
    fireDue()
    await expect.poll(() => sent.filter((text) => text.includes("[forge:goal-continue]")).length).toBe(1)
    await loop.sessionIdle("s1")
    setStatus(goalPath, "paused")
    fireDue()
    await expect.poll(() => lifecycle.snapshot(goalPath)?.value).toEqual({ paused: "stopped" })
    expect(lifecycle.snapshot(goalPath)?.context.stopReason).toBe("user")
    expect(sent.filter((text) => text.includes("[forge:goal-continue]")).length).toBe(1)

    const other = (await service.write("s2", { ...ONE_CHECK_CONTRACT, objective: "ship the release" }, { by: "user" })).goalPath
    await loop.sessionIdle("s2")
    setStatus(other, "abandoned")
    fireDue()
    await expect.poll(() => lifecycle.snapshot(other)?.value).toBe("abandoned")
    expect(sent.filter((text) => text.includes("[forge:goal-continue]")).length).toBe(1)
    loop.dispose()
  })
})
