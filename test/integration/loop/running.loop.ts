import { onTestFinished } from "vitest"
import type { HandoffFields } from "../../../services/loop/loop.handoff"
import { LoopReviewService } from "../../../services/loop/loop.review"
import { FakeClock } from "../../model/goal.fakes"
import { FakeLoopSessions, RecordingWorktrees, SANDBOX_READY } from "../../model/loop.fakes"
import { type LoopProcess, openLoopProcess, processId } from "../../model/loop.process"
import { HOST, PLAN_BODY, PLAN_PATH, TITLE } from "../../model/loop.world"
import { ramTempDir } from "../../temp.dir"

// A workspace with the real loop service and lifecycle (SQLite), its edges faked (loop.fakes.ts), and a loop running
// the approved two-section plan; its processes are closed when the test finishes. For the loop tests that step a loop pass by pass.

/** A workspace folder; `open(n)` starts its n-th opencode process (its loop service and review tools). */
export function loopWorkspace(prefix: string) {
  const dir = ramTempDir(prefix)
  const sessions = new FakeLoopSessions()
  const clock = new FakeClock(Date.parse("2026-12-05T10:00:00.000Z"))
  const plans = { liveFor: async () => ({ planPath: PLAN_PATH, status: "approved", title: TITLE, body: PLAN_BODY }) }
  const open = async (n: number) => {
    const process = await openLoopProcess(dir, clock, sessions, plans, new RecordingWorktrees(dir), SANDBOX_READY, processId(n))
    // Each test's processes are closed when it finishes (a helper module registers no hook of its own: test files share it).
    onTestFinished(() => (closed.has(process) ? undefined : process.rt.close()))
    return { process, reviews: new LoopReviewService(process.service, process.reviews, clock) }
  }
  const closed = new Set<LoopProcess>()
  /** Closes a process before the test ends (a restart): the next one opens on the same folder. */
  const close = async (process: LoopProcess) => {
    closed.add(process)
    await process.rt.close()
  }
  return { sessions, open, close }
}

/** The loop started in a new workspace; `pass(session, fields?)` opens the next pass as `session` and hands off. */
export async function runningLoop(prefix: string, maxIterations?: number) {
  const workspace = loopWorkspace(prefix)
  const { process, reviews } = await workspace.open(1)
  await process.service.start(HOST, { title: TITLE, ...(maxIterations === undefined ? {} : { maxIterations }) })
  const settle = async () => {
    for (let round = 0; round < 5; round++) {
      await new Promise((resolve) => setImmediate(resolve))
      await process.rt.host.idle()
    }
  }
  const pass = async (session: string, fields?: HandoffFields) => {
    if (workspace.sessions.pending() !== undefined) {
      workspace.sessions.pending()?.resolve(session)
      await settle()
    }
    if (fields === undefined) return
    await process.service.handoff(session, fields)
    await process.service.sessionIdle(session)
    await settle()
  }
  return { ...workspace, process, service: process.service, reviews, pass, settle }
}
