// The goal machine's audit (`/goal … --audit`): the completion gate's second key. A goal born with an audit goes from a
// verified completion to `auditing`, and completes only from an audit whose auditor session leaves no bug open.
import { describe, expect, it } from "vitest"
import { getNextSnapshot } from "xstate"
import type { GoalEvent } from "../../../machines/goal/goal.machine"
import { explainGoalRefusal } from "../../../machines/goal/goal.refusals"
import { T0, allow, arm } from "./goal.fixtures"
import { active, allPass, claimed, complete, debouncing, effectsOf, expectRefused, from, idle, machine, pause, run, start } from "./goal.machine.helpers"

const AUDITOR = "ses_auditor"
const opened: GoalEvent = { type: "goal.audit.opened", session: AUDITOR }
const tool = (name: string, session = AUDITOR): GoalEvent => ({ type: "goal.audit.tool", session, tool: name })
const bug = (line: number, session = AUDITOR): GoalEvent => ({
  type: "goal.review.write",
  session,
  finding: { file: "src/login.ts", line, severity: "bug", description: "the timeout is never cleared", scenario: null },
})
const warning: GoalEvent = {
  type: "goal.review.write",
  session: AUDITOR,
  finding: { file: "src/login.ts", line: 40, severity: "warning", description: "a magic number", scenario: null },
}
const deleted = (line: number, session = AUDITOR): GoalEvent => ({ type: "goal.review.delete", session, file: "src/login.ts", line })
const done = (session = AUDITOR): GoalEvent => ({ type: "goal.audit.done", session, summary: "checked the login flow", now: T0 + 5_000 })
const failed: GoalEvent = { type: "goal.audit.failed", error: "the auditor session could not be opened", now: T0 + 5_000 }

/** Armed at T0 with an audit; the arm's allow carries the workspace's snapshot. */
const audited = () => run([arm, { type: "dialog.allow", dialog: 1, now: T0, auditBase: "tree-at-arm" }], { audit: true })
const auditing = () => from(audited(), complete(), opened)

describe("goal audit", () => {
  it("is born with the goal, and its base is the workspace at the first arm; a goal without one has none", () => {
    expect(start().context.audit).toBeNull()
    expect(active().context.audit).toBeNull()
    expect(start({ audit: true }).context.audit).toEqual({ base: null, session: null, sessions: [], findings: [], rounds: 0, last: null })
    expect(audited().context.audit?.base).toBe("tree-at-arm")
  })

  it("sends a verified completion to the auditor instead of the dialog; an unverified one is refused as before", () => {
    const goal = audited()
    const verified = from(goal, complete())
    expect(verified.value).toEqual({ active: "auditing" })
    expect(verified.hasTag("auditing")).toBe(true)
    expect(verified.hasTag("awaiting-user")).toBe(false)
    expectRefused(goal, complete({ results: [{ item: 1, pass: true }] }))
    // From the debounce too: the completion clears the deadline.
    const fromDebounce = from(run([arm, allow(1, T0), idle(T0 + 1_000)], { audit: true }), complete())
    expect(fromDebounce.value).toEqual({ active: "auditing" })
    expect(fromDebounce.context.dueAt).toBeNull()
    // A goal without an audit still goes to its dialog.
    expect(from(debouncing(), complete()).value).toEqual({ active: "completing" })
  })

  it("takes one auditor session per audit, and asks only it", () => {
    const goal = auditing()
    expect(goal.context.audit?.session).toBe(AUDITOR)
    expect(goal.context.audit?.sessions).toEqual([AUDITOR])
    expectRefused(goal, { type: "goal.audit.opened", session: "ses_second" })
    expect(explainGoalRefusal(goal, { type: "goal.audit.opened", session: "ses_second" })).toMatch(/one session per audit/)
    expectRefused(from(audited(), complete()), bug(10))
  })

  it("bans the auditor's writes, harness tools, questions and subagents; reading and running checks go ahead", () => {
    const goal = auditing()
    for (const allowed of ["read", "grep", "bash", "forge_read", "forge_shell", "review_write", "review_read"])
      expect(goal.can(tool(allowed)), allowed).toBe(true)
    for (const banned of ["write", "edit", "apply_patch", "forge_write", "goal_complete", "plan_write", "loop_start", "question", "task"]) {
      expectRefused(goal, tool(banned))
      expect(explainGoalRefusal(goal, tool(banned)), banned).toMatch(/^goal audit write-ban: this session audits goal /)
    }
    // Another session is no auditor of this goal.
    expectRefused(goal, tool("read", "ses_other"))
    expect(explainGoalRefusal(goal, tool("read", "ses_other"))).toMatch(/has no audit for this session/)
  })

  it("keeps one finding per place, and lets only the auditor delete one", () => {
    const goal = from(auditing(), bug(10))
    expect(goal.context.audit?.findings).toEqual([
      { file: "src/login.ts", line: 10, severity: "bug", description: "the timeout is never cleared", scenario: null, session: AUDITOR },
    ])
    expectRefused(goal, bug(10))
    expect(explainGoalRefusal(goal, bug(10))).toMatch(/src\/login.ts:10 already has an open finding/)
    expectRefused(goal, deleted(11))
    expectRefused(goal, deleted(10, "ses_other"))
    expect(from(goal, deleted(10)).context.audit?.findings).toEqual([])
  })

  it("completes only from an audit that leaves no bug open: a dirty one sends the goal back to work with its findings", () => {
    const dirty = from(auditing(), bug(10), warning)
    expect(effectsOf(dirty, done())).toEqual(["stopAuditor", "writeDocument:audited"])
    const back = from(dirty, done())
    expect(back.value).toEqual({ active: "working" })
    expect(back.context.audit).toMatchObject({ session: null, rounds: 1, last: { outcome: "dirty", summary: "checked the login flow" } })
    expect(back.context.audit?.findings).toHaveLength(2)
    // The next audit starts from what is left; its auditor deletes the fixed bug, and a warning does not block.
    const second = from(back, complete(), { type: "goal.audit.opened", session: "ses_second" }, deleted(10, "ses_second"))
    expectRefused(second, bug(12))
    const clean = from(second, done("ses_second"))
    expect(clean.value).toEqual({ active: "completing" })
    expect(clean.hasTag("awaiting-user")).toBe(true)
    expect(clean.context.audit).toMatchObject({ rounds: 2, sessions: [AUDITOR, "ses_second"], last: { outcome: "clean" } })
    expect(from(clean, allow(clean.context.dialog)).value).toBe("completed")
  })

  it("refuses the end of a turn that is not the audit's auditor's", () => {
    expectRefused(auditing(), done("ses_other"))
    expectRefused(from(audited(), complete()), done())
  })

  it("fails an audit that could not run, and the goal works on; the failure is kept", () => {
    const goal = from(audited(), complete(), failed)
    expect(goal.value).toEqual({ active: "working" })
    expect(goal.context.audit).toMatchObject({ rounds: 1, last: { outcome: "failed", summary: "the auditor session could not be opened" } })
    expectRefused(goal, failed)
  })

  it("stops the auditor when the goal leaves the audit another way, and the auditor can do nothing after", () => {
    const goal = from(auditing(), bug(10))
    expect(effectsOf(goal, pause("user"))).toContain("stopAuditor")
    const paused = from(goal, pause("user"))
    expect(paused.value).toEqual({ paused: "stopped" })
    expectRefused(paused, tool("read"))
    expect(explainGoalRefusal(paused, tool("read"))).toMatch(/this session ran is over, so it can do nothing more/)
    expectRefused(paused, done())
  })

  it("fails the audit when another process takes the goal over from the one that ran it, and only then", () => {
    const goal = auditing()
    const dead: GoalEvent = { type: "goal.restored", now: T0 + 9_000, driver: { ...claimed("p2", "p1", false), now: T0 + 9_000 } }
    const alive: GoalEvent = { type: "goal.restored", now: T0 + 9_000, driver: { ...claimed("p2", "p1", true), now: T0 + 9_000 } }
    expectRefused(goal, alive)
    const taken = getNextSnapshot(machine, goal, dead)
    expect(taken.value).toEqual({ active: "working" })
    expect(taken.context.audit).toMatchObject({ session: null, last: { outcome: "failed", summary: "the process running the audit ended" } })
  })

  it("keeps a resumed goal's base, and ignores the session's idles while the audit runs", () => {
    const goal = auditing()
    expectRefused(goal, idle(T0 + 2_000))
    const resumed = from(
      goal,
      pause("user"),
      { type: "goal.resume", sessionId: "s2", draftPlan: false, now: T0 + 60_000, addTurns: 0, addMinutes: 0 },
      { type: "dialog.allow", dialog: 2, now: T0 + 60_000, auditBase: "tree-later" },
    )
    expect(resumed.context.audit?.base).toBe("tree-at-arm")
    expect(resumed.context.audit?.session).toBeNull()
    expect(from(resumed, complete({ results: allPass(2) })).value).toEqual({ active: "auditing" })
  })
})
