import { readFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { LOOP_MACHINE_VERSION, loopPassOf } from "../../../machines/loop/loop.machine"
import { restoreLive } from "../../../services/lifecycle/lifecycle.restore.live"
import { upgradeLoopRecord } from "../../../services/loop/loop.upgrade"
import type { CompleteFields, HandoffFields } from "../../../services/loop/loop.handoff"
import { ramTempDir } from "../../temp.dir"
import { FakeClock } from "../../model/goal.fakes"
import { FakeLoopSessions, RecordingWorktrees, SANDBOX_READY } from "../../model/loop.fakes"
import { type LoopProcess, openLoopProcess, processId } from "../../model/loop.process"
import { seedMigratedDatabase } from "../../model/migrated.database"
import { LOOP, PLAN_BODY, PLAN_PATH, TITLE } from "../../model/loop.world"

// Loop records already in users' databases were written by version 1 of the loop machine (each phase's pass inline).
// The two fixtures are such records, captured from the real service before the passes became one machine
// (test/fixtures/loop/README.md): each must restore through the loop lifecycle's upgrade and run on to completion.

interface Fixture {
  machineVersion: string
  state: string
  snapshot: { value: unknown; context: Record<string, unknown> }
}

const fixture = (name: string): Fixture => JSON.parse(readFileSync(path.join(import.meta.dirname, "../../fixtures/loop", `${name}.json`), "utf8")) as Fixture

const CODED: HandoffFields = {
  changes: [{ summary: "Parser for + - * / and parentheses", reason: "the section asks for it" }],
  deviations: [],
  verification: [{ command: "npm test", cwd: "", outcome: "pass", changedAfter: false }],
}
const CLEAN: HandoffFields = { findings: [], summary: { done: ["the section is implemented"], deviations: [], followUps: [] } }
const FINAL: HandoffFields = { findings: [] }
const WRAPPED: CompleteFields = { outcome: "completed", steps: ["ran the checks on the branch"] }

/** A workspace whose database holds the fixture's record, and a process of today's code opened on it. */
async function workspaceWith(record: Fixture): Promise<{ process: LoopProcess; sessions: FakeLoopSessions }> {
  const dir = ramTempDir("forge-loop-upgrade-")
  await seedMigratedDatabase(dir)
  const clock = new FakeClock(Date.parse("2026-12-04T20:00:00.000Z"))
  const sessions = new FakeLoopSessions()
  const plans = { liveFor: async () => ({ planPath: PLAN_PATH, status: "approved", title: TITLE, body: PLAN_BODY }) }
  const process = await openLoopProcess(dir, clock, sessions, plans, new RecordingWorktrees(dir), SANDBOX_READY, processId(2))
  await process.rt.repository.saveSnapshot({
    machineId: "loop",
    machineVersion: record.machineVersion,
    instanceId: LOOP,
    sessionId: "ses_host",
    state: record.state,
    terminal: false,
    snapshot: record.snapshot,
    document: PLAN_PATH,
    updatedAt: clock.now(),
  })
  return { process, sessions }
}

async function settle(process: LoopProcess): Promise<void> {
  for (let round = 0; round < 5; round++) {
    await new Promise((resolve) => setImmediate(resolve))
    await process.rt.host.idle()
  }
}

/** Opens the session the loop waits for, hands off its record (loop_complete's for the post-action) and ends its turn. */
async function pass(process: LoopProcess, sessions: FakeLoopSessions, session: string, fields: HandoffFields | CompleteFields): Promise<void> {
  sessions.pending()?.resolve(session)
  await settle(process)
  if ("outcome" in fields) await process.service.complete(session, fields)
  else await process.service.handoff(session, fields)
  await process.service.sessionIdle(session)
  await settle(process)
}

describe("loop records of version 1", () => {
  it("the upgrade moves the pass into the invoked pass machine, its handoff and reminders with it", () => {
    const v1 = fixture("v1.auditing.working")
    expect(v1.machineVersion).toBe("1")
    const upgraded = upgradeLoopRecord({ value: v1.snapshot.value as never, context: v1.snapshot.context }, "1")
    expect(upgraded.value).toEqual({ running: "auditing" })
    expect(upgraded.context).not.toHaveProperty("pending")
    expect(upgraded.context).not.toHaveProperty("nudges")
    expect(upgraded.children?.pass?.src).toBe("pass")
    expect(upgraded.children?.pass?.snapshot).toMatchObject({
      status: "active",
      value: "working",
      context: { phase: "auditing", iteration: 2, maxIterations: 7, pending: null, nudges: 0 },
    })
    expect(() => upgradeLoopRecord({ value: "completed", context: {} }, "0")).toThrow(/no upgrade from loop machine version 0/)
  })

  it("version 3 records get their phase (where a restart resumes) and no restarts", () => {
    const sections = (...status: string[]) => status.map((s, i) => ({ title: `S${i + 1}`, content: "c", status: s }))
    const phaseOf = (value: unknown, status: string[]) =>
      upgradeLoopRecord({ value: value as never, context: { sections: sections(...status) } }, "3").context as { phase?: unknown; restarts?: unknown }
    expect(phaseOf({ running: "auditing" }, ["pending", "pending"])).toMatchObject({ phase: "auditing", restarts: [] })
    expect(phaseOf("stalled", ["done", "pending"])).toMatchObject({ phase: "coding", restarts: [] })
    expect(phaseOf("errored", ["done", "done"])).toMatchObject({ phase: "final_auditing", restarts: [] })
  })

  it("a loop whose audit ran restores and runs on to completion", async () => {
    const { process, sessions } = await workspaceWith(fixture("v1.auditing.working"))
    try {
      const report = await restoreLive(process.service.lifecycle, process.rt.repository)
      expect(report).toEqual({ restored: [LOOP], problems: [] })
      await process.service.resumeAll()
      const restored = process.service.lifecycle.snapshot(LOOP)
      expect(restored?.value).toEqual({ running: "auditing" })
      expect(restored && loopPassOf(restored)?.value).toBe("working")
      // The audit's session still runs its turn: its handoff and idle are today's code's.
      await process.service.handoff("ses_pass_2", CLEAN)
      await process.service.sessionIdle("ses_pass_2")
      await settle(process)
      await pass(process, sessions, "ses_pass_3", CODED)
      await pass(process, sessions, "ses_pass_4", CLEAN)
      await pass(process, sessions, "ses_pass_5", FINAL)
      await pass(process, sessions, "ses_pass_6", WRAPPED)
      const done = process.service.lifecycle.snapshot(LOOP)
      expect(done?.value).toBe("completed")
      expect(done?.context).toMatchObject({ iteration: 6, sessions: ["ses_pass_1", "ses_pass_2", "ses_pass_3", "ses_pass_4", "ses_pass_5", "ses_pass_6"] })
      expect(sessions.told.at(-1)?.text).toContain(`Loop ${LOOP} completed`)
      const row = await process.rt.repository.getSnapshot("loop", LOOP)
      expect(row?.machineVersion).toBe(LOOP_MACHINE_VERSION)
      expect(row?.terminal).toBe(true)
    } finally {
      await process.rt.close()
    }
  })

  it("a loop whose first session was being opened opens it again and runs on to completion", async () => {
    const { process, sessions } = await workspaceWith(fixture("v1.coding.opening"))
    try {
      expect(await restoreLive(process.service.lifecycle, process.rt.repository)).toEqual({ restored: [LOOP], problems: [] })
      // Taken over: the session the closed process was opening is opened again, on the same pass.
      await process.service.resumeAll()
      await settle(process)
      expect(sessions.openings.map((o) => o.title)).toEqual([`Loop ${LOOP} · pass 1 · coder · ${TITLE}`])
      await pass(process, sessions, "ses_pass_1", CODED)
      await pass(process, sessions, "ses_pass_2", CLEAN)
      await pass(process, sessions, "ses_pass_3", CODED)
      await pass(process, sessions, "ses_pass_4", CLEAN)
      await pass(process, sessions, "ses_pass_5", FINAL)
      await pass(process, sessions, "ses_pass_6", WRAPPED)
      const done = process.service.lifecycle.snapshot(LOOP)
      expect(done?.value).toBe("completed")
      expect(done?.context.iteration).toBe(6)
      expect(sessions.sent.map((s) => s.session)).toEqual(["ses_pass_1", "ses_pass_2", "ses_pass_3", "ses_pass_4", "ses_pass_5", "ses_pass_6"])
    } finally {
      await process.rt.close()
    }
  })
})
