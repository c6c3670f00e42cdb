import { afterEach, describe, expect, it } from "vitest"
import { loopPlanNotes } from "../../../services/loop/loop.plan.notes"
import { PlanNotes } from "../../../services/plan/plan.notes"
import { FakeClock } from "../../model/goal.fakes"
import { FakeLoopSessions, RecordingWorktrees, SANDBOX_READY } from "../../model/loop.fakes"
import { type LoopProcess, openLoopProcess, processId } from "../../model/loop.process"
import { HOST, LOOP, PLAN_BODY, PLAN_PATH, TITLE } from "../../model/loop.world"
import { ramTempDir } from "../../temp.dir"

// What /plan says of a plan's loops, read from the loops' records by the real loop lifecycle over SQLite: the loop
// running it, or how the last one ended and what the user does next. The completed case runs in the e2e scenario
// loop/plan-next.serve.json.

const opened: LoopProcess[] = []
afterEach(async () => {
  for (const process of opened.splice(0)) await process.rt.close()
})

async function loopProcess(): Promise<LoopProcess> {
  const dir = ramTempDir("forge-loop-notes-")
  const clock = new FakeClock(Date.parse("2026-12-05T10:00:00.000Z"))
  const plans = { liveFor: async () => ({ planPath: PLAN_PATH, status: "approved", title: TITLE, body: PLAN_BODY }) }
  const process = await openLoopProcess(dir, clock, new FakeLoopSessions(), plans, new RecordingWorktrees(dir), SANDBOX_READY, processId(1))
  opened.push(process)
  return process
}

/** What the loops say about one plan. */
const notesOf = async (service: LoopProcess["service"], planPath: string) => (await loopPlanNotes(service.lifecycle, [planPath])).get(planPath) ?? []

describe("loopPlanNotes", () => {
  it("says nothing of a plan no loop ran", async () => {
    const { service } = await loopProcess()
    expect(await notesOf(service, PLAN_PATH)).toEqual([])
  })

  it("names the loop running the plan, then how it ended, why, and what comes next", async () => {
    const { service, rt } = await loopProcess()
    await service.start(HOST, { title: TITLE })
    const running = await notesOf(service, PLAN_PATH)
    expect(running).toEqual([
      `loop ${LOOP}: running, coding (coder), opening its session — 0/2 sections done, pass 1/15 (section 1): loop_status ${LOOP} shows where it stands, loop_cancel stops it`,
    ])
    expect(await notesOf(service, ".opencode/plan/another.md")).toEqual([])
    const both = await loopPlanNotes(service.lifecycle, [PLAN_PATH, ".opencode/plan/another.md"])
    expect([...both.keys()], "one read answers for every plan; a plan no loop ran is left out").toEqual([PLAN_PATH])

    await service.cancel(HOST, LOOP, "the user wants to do it by hand")
    await rt.host.idle()
    expect(await notesOf(service, PLAN_PATH)).toEqual([
      `loop ${LOOP} cancelled at 2026-12-05T10:00:00.000Z (cancelled: the user wants to do it by hand), 0 of 2 sections done; what it did is on branch forge/loop/${LOOP}. Next: loop_status ${LOOP} says more; run the plan again with loop_start, or carry on in a session.`,
    ])
  })
})

describe("PlanNotes", () => {
  it("joins every source's lines in the order they were added, and names a source that fails instead of failing", async () => {
    const notes = new PlanNotes()
    notes.add("loop", async (planPaths) => new Map(planPaths.map((planPath) => [planPath, [`a loop ran ${planPath}`]])))
    notes.add("crew", async () => {
      throw new Error("database is locked")
    })
    notes.add("goal", async () => new Map())
    const all = await notes.forPlans(["p.md", "q.md"])
    expect(all.get("p.md")).toEqual(["a loop ran p.md", "(the crew notes could not be read: database is locked)"])
    expect(all.get("q.md")).toEqual(["a loop ran q.md", "(the crew notes could not be read: database is locked)"])
  })
})
