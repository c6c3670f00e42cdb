import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { FsGoalFiles } from "../../../adapters/workspace/goal.files"
import { runGoalCommand } from "../../../services/goal/goal.command"
import type { GoalContract } from "../../../services/goal/goal.contract"
import { parseGoalDocument } from "../../../services/goal/goal.document"
import { defineGoalLifecycle } from "../../../services/goal/goal.lifecycle"
import { GoalService } from "../../../services/goal/goal.service"
import { allow, memoryLogger, useRuntime } from "../plan/plan.helpers"

// Issue 23 §1b for goals: a goal document that says completed (or active, for a paused goal) would pass a gate the
// user holds, so the goal stays where it is, its answers and /goal name the held status, and only the completion
// (or resume) dialog moves it. A document that says paused only tightens: the goal is paused at once.

const CONTRACT: GoalContract = {
  objective: "make the suite green",
  success: ["zero failing tests"],
  checks: [{ kind: "command", command: "npm test", timeoutS: 120 }],
  constraints: [],
  nonGoals: [],
  budgets: { maxTurns: 5, maxMinutes: 30 },
}

function harness(ctx: ReturnType<typeof useRuntime>) {
  const files = new FsGoalFiles(ctx.ws.dir)
  const log = memoryLogger()
  const lifecycle = defineGoalLifecycle(ctx.rt.host, { files, clock: ctx.ws.clock, log, prompter: { send: async () => {} } })
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
  return { service, lifecycle, setStatus, documentStatus }
}

describe("goal document changes are decided by direction", () => {
  const ctx = useRuntime()

  it("status: completed in the document keeps the goal active; its answers and /goal name it; only the completion dialog completes it", async () => {
    const { service, lifecycle, setStatus, documentStatus } = harness(ctx)
    const { goalPath } = await service.write("s1", CONTRACT, { by: "model", confirm: allow })
    setStatus(goalPath, "completed")
    const overview = await runGoalCommand(service, "s1", "")
    expect(lifecycle.snapshot(goalPath)?.value).toEqual({ active: "working" })
    expect(lifecycle.snapshot(goalPath)?.context.pendingDocument).toBe("completed")
    expect(overview.user).toContain("the document says completed; confirm? /goal confirm (the goal stays active until you do)")
    const confirm = await runGoalCommand(service, "s1", "confirm")
    expect(confirm.model).toContain("Call goal_complete now")
    expect(confirm.user).toContain("Confirm in the completion dialog")
    const done = await service.complete("s1", [{ criterion: "zero failing tests", evidence: "npm test: 3 passed" }], allow)
    expect(done.output).toContain("Goal completed")
    expect(documentStatus(goalPath)).toBe("completed")
  })

  it("status: paused in the document pauses the goal at once (it only tightens)", async () => {
    const { service, lifecycle, setStatus } = harness(ctx)
    const { goalPath } = await service.write("s1", CONTRACT, { by: "model", confirm: allow })
    setStatus(goalPath, "paused")
    await runGoalCommand(service, "s1", "")
    expect(lifecycle.snapshot(goalPath)?.value).toEqual({ paused: "stopped" })
    expect(lifecycle.snapshot(goalPath)?.context.stopReason).toBe("user")
  })

  it("status: active in a paused goal's document is held for the resume dialog, and a document back at paused drops it", async () => {
    const { service, lifecycle, setStatus } = harness(ctx)
    const { goalPath } = await service.write("s1", CONTRACT, { by: "model", confirm: allow })
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
})
