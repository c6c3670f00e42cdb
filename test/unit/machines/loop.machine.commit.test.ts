import { describe, expect, it } from "vitest"
import type { LoopHandoff } from "../../../machines/loop/loop.gates"
import { type LoopEvent, loopMachine } from "../../../machines/loop/loop.machine"
import { initialStep, step } from "../../../services/lifecycle/lifecycle.step"
import type { RequestedEffect } from "../../../services/lifecycle/lifecycle.effects"
import { CODED, inputFor } from "../../model/loop.fixtures"
import { MODEL_DRIVER } from "../../model/loop.world"

// The host commits a loop's work on its branch, never a pass: each section once its audit is clean (before the section
// is marked done, so the effect names it), and what the final audit's fixes changed once the final audit is clean. A
// dirty audit commits nothing. The pure step, as the host computes it.

const CLEAN: LoopHandoff = { role: "auditor", findings: [], summary: { done: ["done"], deviations: [], followUps: [] }, notes: null }
const FINAL_CLEAN: LoopHandoff = { role: "auditor", findings: [], summary: null, notes: null }
const WRAPPED: LoopHandoff = { role: "post_action", outcome: "completed", steps: ["ran the checks"], followUps: [], notes: null }
const BUG: LoopHandoff = { role: "auditor", findings: [{ severity: "bug", file: "a.ts", line: 1, description: "wrong" }], summary: null, notes: null }

/** Runs one pass: its session opens, hands off `handoff` and goes idle. Resolves the snapshot and the idle's effects. */
function pass(snapshot: ReturnType<typeof initialStep>["snapshot"], session: string, handoff: LoopHandoff) {
  const events: LoopEvent[] = [
    { type: "loop.session.opened", session, driver: MODEL_DRIVER },
    { type: "loop.handoff", session, handoff },
    { type: "loop.idle", session },
  ]
  let current = snapshot
  let requested: RequestedEffect[] = []
  for (const event of events) {
    const next = step(loopMachine, current, event)
    expect(next.refused, event.type).toBe(false)
    current = next.snapshot
    requested = next.requested
  }
  return { snapshot: current, requested }
}

const commits = (requested: RequestedEffect[]) =>
  requested
    .filter((effect) => effect.type === "commitSection")
    .map((effect) => ({ params: effect.params, section: (effect.info as { context: { sectionIndex: number } }).context.sectionIndex }))

describe("the loop's commits", () => {
  it("a clean section audit commits that section, a dirty one nothing, a clean final audit the final fixes, and the post-action its own", () => {
    let { snapshot } = initialStep(loopMachine, inputFor({ maxIterations: 10 }))
    const coded = pass(snapshot, "s1", CODED)
    expect(commits(coded.requested), "a coder's handoff commits nothing").toEqual([])
    const dirty = pass(coded.snapshot, "s2", BUG)
    expect(commits(dirty.requested), "a dirty audit commits nothing").toEqual([])
    const clean = pass(pass(dirty.snapshot, "s3", CODED).snapshot, "s4", CLEAN)
    expect(commits(clean.requested), "section 1, named before it is marked done").toEqual([{ params: undefined, section: 0 }])
    snapshot = pass(clean.snapshot, "s5", CODED).snapshot
    const last = pass(snapshot, "s6", CLEAN)
    expect(last.snapshot.value).toEqual({ running: "final_auditing" })
    expect(commits(last.requested), "the last section").toEqual([{ params: undefined, section: 1 }])
    const fixing = pass(last.snapshot, "s7", BUG)
    expect(commits(fixing.requested)).toEqual([])
    const wrapUp = pass(pass(fixing.snapshot, "s8", CODED).snapshot, "s9", FINAL_CLEAN)
    expect(wrapUp.snapshot.value).toEqual({ running: "post_action" })
    expect(commits(wrapUp.requested), "the final audit's fixes").toEqual([{ params: { final: true }, section: 1 }])
    const done = pass(wrapUp.snapshot, "s10", WRAPPED)
    expect(done.snapshot.value).toBe("completed")
    expect(commits(done.requested), "the post-action's work, before the ending is announced").toEqual([{ params: { final: true, post: true }, section: 1 }])
    expect(done.requested.map((effect) => effect.type).indexOf("commitSection")).toBeLessThan(done.requested.map((effect) => effect.type).indexOf("announce"))
  })
})
