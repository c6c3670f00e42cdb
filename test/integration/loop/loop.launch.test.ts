import { existsSync } from "node:fs"
import path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { explainLoopBirthRefusal } from "../../../machines/loop/loop.refusals"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import { LAUNCH_BRIEF_TAG } from "../../../services/loop/loop.launch"
import { FakeClock } from "../../model/goal.fakes"
import { FakeLoopSessions, RecordingWorktrees, SANDBOX_READY } from "../../model/loop.fakes"
import { type LoopProcess, openLoopProcess, processId } from "../../model/loop.process"
import { HOST, PLAN_BODY, PLAN_PATH, TITLE } from "../../model/loop.world"
import { ramTempDir } from "../../temp.dir"
import { loopMachine } from "../../../machines/loop/loop.machine"
import { initialStep } from "../../../services/lifecycle/lifecycle.step"
import { inputFor } from "../../model/loop.fixtures"

// loop_start {mode: "new-session"}: the plan carried out in one fresh session, with no worktree and no loop; the
// loop's birth gate still decides whether the plan may run.

const processes: LoopProcess[] = []
afterEach(async () => {
  for (const process of processes.splice(0)) await process.rt.close()
})

async function workspaceWith(status: string) {
  const dir = ramTempDir("forge-loop-launch-")
  const sessions = new FakeLoopSessions()
  const worktrees = new RecordingWorktrees(dir)
  const plans = { liveFor: async () => ({ planPath: PLAN_PATH, status, title: TITLE, body: PLAN_BODY }) }
  const process = await openLoopProcess(dir, new FakeClock(Date.parse("2026-12-05T10:00:00.000Z")), sessions, plans, worktrees, SANDBOX_READY, processId(1))
  processes.push(process)
  return { dir, sessions, worktrees, service: process.service }
}

describe("a plan launched in a new session", () => {
  it("opens one session briefed with the whole plan, and makes no worktree and no loop", async () => {
    const { dir, sessions, worktrees, service } = await workspaceWith("approved")
    const launching = service.launch(HOST, { title: "Ship it", mode: "new-session" })
    for (let round = 0; round < 100 && sessions.pending() === undefined; round++) await new Promise((resolve) => setTimeout(resolve, 5))
    sessions.pending()?.resolve("ses_launched")
    const answer = await launching
    expect(answer).toBe(
      [
        "Plan Ship it launched in a new session (ses_launched): 2 sections, carried out there in this workspace, with no worktree and no loop.",
        "loop_status and loop_cancel do not track it: open that session to follow it.",
      ].join("\n"),
    )
    expect(sessions.openings.map((o) => o.title)).toEqual(["Plan · Ship it"])
    const [brief] = sessions.sent
    expect(brief?.session).toBe("ses_launched")
    expect(brief?.text.split("\n")[0]).toBe(`${LAUNCH_BRIEF_TAG} Carry out the plan "Ship it" (${PLAN_PATH}, approved) in this workspace, section by section.`)
    expect(brief?.text).toContain("Section 1: Parser")
    expect(brief?.text).toContain("Section 2: Printer")
    expect(brief?.text).toContain("## Acceptance Criteria")
    expect(worktrees.created).toEqual([])
    expect(existsSync(path.join(dir, ".opencode", "forge", "worktrees"))).toBe(false)
    expect([...service.lifecycle.instances()]).toEqual([])
    expect(await service.status(undefined)).toBe("No loop in this workspace. Start one from an approved plan with loop_start.")
  })

  it("a draft plan is refused by the loop's birth gate, and nothing is opened", async () => {
    const { sessions, service } = await workspaceWith("draft")
    const refusal = explainLoopBirthRefusal(initialStep(loopMachine, inputFor({ planStatus: "draft" })).snapshot as never)
    await expect(service.launch(HOST, { title: "Ship it", mode: "new-session" })).rejects.toThrow(new GateRefusal("loop", "xstate.init", refusal))
    expect(sessions.openings).toEqual([])
  })
})
