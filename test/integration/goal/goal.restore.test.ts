import { readdirSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { GOAL_DEBOUNCE_MS } from "../../../machines/goal/goal.gates"
import type { GoalContext } from "../../../machines/goal/goal.machine"
import { restoreGoals } from "../../../services/goal/goal.restore"
import { GOAL_DIR } from "../../../services/goal/goal.paths"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import type { SnapshotRecord } from "../../../services/lifecycle/lifecycle.ports"
import { allow, openRuntime, useRuntime } from "../plan/plan.helpers"
import { ONE_CHECK_CONTRACT, goalServiceOn } from "./goal.contract.fixture"

// A goal's debounce is born with it and kept in its record. Records an older Forge wrote have none: a restart must
// restore them as they were, their loop debounced by the default they always had. Nor do they have the facts the
// birth gate decided on: they restore with none, and the session's goal still holds the session against a new arm.
// Nor have they counted their dialogs: they restore with none counted.

function goals(ctx: ReturnType<typeof useRuntime>, debounceMs?: number) {
  return goalServiceOn(ctx, { run: async () => ({ pass: true, summary: "exit code 0", outputTail: "" }) }, debounceMs)
}

/** A stored record's context as it was written (it may lack fields this version's contexts have). */
function contextOf(record: SnapshotRecord | undefined): Partial<GoalContext> {
  if (record === undefined) throw new Error("no goal record")
  return (record.snapshot as { context: Partial<GoalContext> }).context
}

describe("goal records across a restart", () => {
  const ctx = useRuntime()

  /** Closes the runtime and opens the workspace again, as the next opencode does. */
  const restart = async () => {
    await ctx.rt.close()
    ctx.rt = await openRuntime(ctx.ws.dir, ctx.ws.clock)
  }

  /** Rewrites the goal's record as an older Forge left it: the same goal without `field` in its context; that context. */
  const writtenWithout = async (goalPath: string, field: keyof GoalContext): Promise<Partial<GoalContext>> => {
    const record = await ctx.rt.repository.getSnapshot("goal", goalPath)
    if (record === undefined) throw new Error("no goal record")
    const { [field]: _dropped, ...older } = contextOf(record)
    const persisted = record.snapshot as Record<string, unknown>
    await ctx.rt.repository.commit(
      { ...record, snapshot: { ...persisted, context: older } },
      { machineId: "goal", instanceId: goalPath, sessionId: "s1", from: record.state, event: "older.forge", to: record.state, at: ctx.ws.clock.now() },
    )
    return older
  }

  it("a goal keeps the debounce it was born with", async () => {
    const { service } = goals(ctx, 300)
    const { goalPath } = await service.write("s1", ONE_CHECK_CONTRACT, { by: "model", confirm: allow })
    expect(contextOf(await ctx.rt.repository.getSnapshot("goal", goalPath)).debounceMs).toBe(300)
    await restart()
    // This process would give new goals another debounce: the restored one keeps its own.
    const { lifecycle } = goals(ctx, 5_000)
    expect((await restoreGoals(lifecycle, ctx.rt.repository)).restored).toEqual([goalPath])
    const now = ctx.ws.clock.now()
    expect((await lifecycle.dispatch(goalPath, { type: "session.idle", now })).context.dueAt).toBe(now + 300)
  })

  it("a record written before goals carried their debounce restores with the default, and its loop runs on it", async () => {
    const { service } = goals(ctx)
    const { goalPath } = await service.write("s1", ONE_CHECK_CONTRACT, { by: "model", confirm: allow })
    // The record as an older Forge left it: the same goal, no debounce in its context.
    const older = await writtenWithout(goalPath, "debounceMs")
    expect(contextOf(await ctx.rt.repository.getSnapshot("goal", goalPath))).not.toHaveProperty("debounceMs")

    await restart()
    const { lifecycle } = goals(ctx, 300)
    expect(await restoreGoals(lifecycle, ctx.rt.repository)).toEqual({ restored: [goalPath], problems: [] })
    const restored = lifecycle.snapshot(goalPath)
    expect(restored?.value).toEqual({ active: "working" })
    expect(restored?.context).toEqual({ ...older, debounceMs: GOAL_DEBOUNCE_MS })

    ctx.ws.clock.advance(1_000)
    const now = ctx.ws.clock.now()
    const waiting = await lifecycle.dispatch(goalPath, { type: "session.idle", now })
    expect(waiting.value).toEqual({ active: "debouncing" })
    expect(waiting.context.dueAt).toBe(now + GOAL_DEBOUNCE_MS)
    const due = { type: "loop.due", speaker: "forge", draftPlan: false, spend: { cost: 0, tokens: 0 } } as const
    const driver = (at: number) => ({ me: "p2", claim: null, holderAlive: false, now: at })
    expect(lifecycle.can(goalPath, { ...due, now: now + GOAL_DEBOUNCE_MS - 1, driver: driver(now + GOAL_DEBOUNCE_MS - 1) })).toBe(false)
    expect(lifecycle.can(goalPath, { ...due, now: now + GOAL_DEBOUNCE_MS, driver: driver(now + GOAL_DEBOUNCE_MS) })).toBe(true)
    // The step wrote the record up to date.
    expect(contextOf(await ctx.rt.repository.getSnapshot("goal", goalPath)).debounceMs).toBe(GOAL_DEBOUNCE_MS)
  })

  it("a record written before the birth gate's facts were kept restores with none, and still holds its session", async () => {
    const { service } = goals(ctx)
    const { goalPath } = await service.write("s1", ONE_CHECK_CONTRACT, { by: "model", confirm: allow })
    expect(contextOf(await ctx.rt.repository.getSnapshot("goal", goalPath)).birth).toEqual({ armAsked: true, liveGoal: null })
    // The record as the Forge before birth facts left it: the same goal, no birth in its context.
    const older = await writtenWithout(goalPath, "birth")

    await restart()
    const { lifecycle, service: after } = goals(ctx)
    expect(await restoreGoals(lifecycle, ctx.rt.repository)).toEqual({ restored: [goalPath], problems: [] })
    expect(lifecycle.snapshot(goalPath)?.context).toEqual({ ...older, birth: null })
    // A second goal armed in the same session: its own birth gate refuses it, and nothing of it is written.
    const second = after.write("s1", { ...ONE_CHECK_CONTRACT, objective: "ship the docs" }, { by: "model", confirm: allow })
    await expect(second).rejects.toBeInstanceOf(GateRefusal)
    await expect(second).rejects.toThrow(
      `this session already has a live goal: ${goalPath} (active). Revise it with goal_write revise=true, finish it, or discard it (/goal discard); goal_write arm=false queues a new goal instead.`,
    )
    expect(readdirSync(path.join(ctx.ws.dir, GOAL_DIR))).toEqual([path.basename(goalPath)])
    expect(await ctx.rt.repository.instanceIds("goal"), "no record of it").toEqual([goalPath])
    // The restored goal steps on as before (its missing facts decide nothing past its birth).
    expect((await after.pause("s1", "user")).output).toMatch(/^Goal paused: /)
  })

  it("a record written before dialogs were numbered restores with none counted, and its next dialog is 1", async () => {
    const { service } = goals(ctx)
    const { goalPath } = await service.write("s1", ONE_CHECK_CONTRACT, { by: "model", confirm: allow })
    // The record as the Forge before numbered dialogs left it: the same goal, no dialog in its context.
    const older = await writtenWithout(goalPath, "dialog")

    await restart()
    const { lifecycle, service: after } = goals(ctx)
    expect(await restoreGoals(lifecycle, ctx.rt.repository)).toEqual({ restored: [goalPath], problems: [] })
    expect(lifecycle.snapshot(goalPath)?.context).toEqual({ ...older, dialog: 0 })
    // Its next dialog (the model's discard) is numbered 1, and the user's answer to it counts.
    expect((await after.discard("s1", { by: "model", confirm: allow }, "done elsewhere")).output).toBe(`Goal discarded: ${goalPath}.`)
    expect((await ctx.rt.repository.getSnapshot("goal", goalPath))?.snapshot).toMatchObject({ value: "abandoned", context: { dialog: 1 } })
  })
})
