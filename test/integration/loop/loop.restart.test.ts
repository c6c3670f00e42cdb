import { afterEach, describe, expect, it } from "vitest"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import { restoreLive } from "../../../services/lifecycle/lifecycle.restore.live"
import { FakeClock } from "../../model/goal.fakes"
import { FakeLoopSessions, RecordingWorktrees, SANDBOX_READY } from "../../model/loop.fakes"
import { type LoopProcess, openLoopProcess, processId } from "../../model/loop.process"
import { HOST, LOOP, PLAN_BODY, PLAN_PATH, TITLE } from "../../model/loop.world"
import { ramTempDir } from "../../temp.dir"

// loop_status {restart} as the service answers it, beyond the model's paths: the driver gate between two live
// processes, and names that are no loop.

const processes: LoopProcess[] = []
afterEach(async () => {
  for (const process of processes.splice(0)) await process.rt.close()
})

describe("restarting a loop", () => {
  it("a running loop another live process drives is restarted from there: the driver gate refuses, and nothing moves", async () => {
    const dir = ramTempDir("forge-loop-restart-")
    const sessions = new FakeLoopSessions()
    const clock = new FakeClock(Date.parse("2026-12-05T10:00:00.000Z"))
    const plans = { liveFor: async () => ({ planPath: PLAN_PATH, status: "approved", title: TITLE, body: PLAN_BODY }) }
    const worktrees = new RecordingWorktrees(dir)
    const driver = await openLoopProcess(dir, clock, sessions, plans, worktrees, SANDBOX_READY, processId(1))
    processes.push(driver)
    await driver.service.start(HOST, { title: TITLE })
    sessions.pending()?.resolve("ses_pass_1")
    await driver.rt.host.idle()
    await driver.claims.renew()
    // A second opencode on the workspace, while the first one lives and drives the loop.
    const beside = await openLoopProcess(dir, clock, sessions, plans, worktrees, SANDBOX_READY, processId(2), (holder) => holder === driver.id)
    processes.push(beside)
    await restoreLive(beside.service.lifecycle, beside.rt.repository)
    const attempt = beside.service.restart(LOOP, true)
    await expect(attempt).rejects.toBeInstanceOf(GateRefusal)
    await expect(attempt).rejects.toThrow(`loop driver gate: loop ${LOOP}'s coding pass is driven by another opencode process (${driver.id})`)
    await expect(attempt).rejects.toThrow("Restart it from there, or once that process has ended.")
    expect(sessions.stopped, "the pass runs on").toEqual([])
    expect(sessions.openings).toHaveLength(1)
    expect(beside.service.lifecycle.snapshot(LOOP)?.context.restarts).toEqual([])
    // The driver itself restarts it with force.
    expect((await driver.service.restart(LOOP, true)).split("\n")[0]).toMatch(new RegExp(`^Loop ${LOOP} restarted \\(forced\\) from running\\.coding: `))
    expect(sessions.stopped).toEqual(["ses_pass_1"])
  })

  it("a name that is no loop is named, and restart without a loop's record claims nothing", async () => {
    const dir = ramTempDir("forge-loop-restart-")
    const plans = { liveFor: async () => undefined }
    const process = await openLoopProcess(dir, new FakeClock(0), new FakeLoopSessions(), plans, new RecordingWorktrees(dir), SANDBOX_READY, processId(1))
    processes.push(process)
    await expect(process.service.restart("nothing-here", false)).rejects.toThrow('no loop named "nothing-here" in this workspace (loop_status lists them).')
    expect(await process.claims.all("loop")).toEqual([])
  })
})
