import { describe, expect, it } from "vitest"
import { type SnapshotFrom, getNextSnapshot, initialTransition } from "xstate"
import { checkCoverage, isUserGatedDocumentStatus, isWriteBannedTool, normalizeCriterion } from "../../../machines/plan/plan.gates"
import { PLAN_MACHINE_VERSION, type PlanEvent, type PlanInput, planMachine } from "../../../machines/plan/plan.machine"
import { explainPlanRefusal, pendingDocumentNote } from "../../../machines/plan/plan.refusals"
import type { PlanMachineStatus } from "../../../machines/plan/plan.status"
import { planContextProblem, upgradePlanRecord } from "../../../services/plan/plan.context"

type Snapshot = SnapshotFrom<typeof planMachine>

const input: PlanInput = {
  planPath: ".opencode/plan/2026-11-30-x.md",
  sessionId: "s1",
  tasks: [
    { number: 1, ticked: false },
    { number: 2, ticked: false },
  ],
  criteria: ["Login works", "Suite is green"],
  document: "",
}
const login = { criterion: "Login works", pass: true, evidence: "ran login.test.ts" }
const green = { criterion: "suite  IS green", pass: true, evidence: "npm test: 12 passed" }
const passing = [login, green]

/** The user's answers to the dialog `snapshot` holds open (they name it). */
const allowOf = (snapshot: Snapshot): PlanEvent => ({ type: "dialog.allow", dialog: snapshot.context.dialog })
const rejectOf = (snapshot: Snapshot): PlanEvent => ({ type: "dialog.reject", dialog: snapshot.context.dialog })
/** In a `run`: the user's allow or reject of the dialog open at that step. */
const ALLOW = allowOf
const REJECT = rejectOf

function run(...events: (PlanEvent | ((snapshot: Snapshot) => PlanEvent))[]): Snapshot {
  let [snapshot] = initialTransition(planMachine, input)
  for (const step of events) {
    const event = typeof step === "function" ? step(snapshot) : step
    expect(snapshot.can(event), `${event.type} from ${JSON.stringify(snapshot.value)}`).toBe(true)
    snapshot = getNextSnapshot(planMachine, snapshot, event)
  }
  return snapshot
}
const approved = () => run({ type: "plan.approve" }, ALLOW)

describe("draft write-ban (tool.use)", () => {
  it.each([
    "write",
    "edit",
    "bash",
    "task",
    "patch",
    "apply_patch",
    "multiedit",
    "forge_shell",
    "forge_jobs",
    "forge_write",
    "forge_patch",
    "forge_remove",
    "forge_undo",
    "crew_begin",
    "my_patch_tool",
  ])("refuses %s in draft, with the plan file and both ways out", (tool) => {
    const draft = run()
    expect(draft.can({ type: "tool.use", tool })).toBe(false)
    const text = explainPlanRefusal(draft, { type: "tool.use", tool })
    expect(text).toContain(input.planPath)
    expect(text).toContain("plan_approve")
    expect(text).toContain("/plan discard")
    expect(text).toContain("both need the user")
  })

  it.each(["read", "grep", "glob", "webfetch", "plan_write", "plan_read", "plan_edit", "plan_approve", "todowrite", "crew_close"])(
    "allows %s in draft",
    (tool) => {
      expect(run().can({ type: "tool.use", tool })).toBe(true)
    },
  )

  it("holds while the approval dialog is open, and lifts once approved", () => {
    expect(run({ type: "plan.approve" }).can({ type: "tool.use", tool: "bash" })).toBe(false)
    expect(approved().can({ type: "tool.use", tool: "bash" })).toBe(true)
    expect(approved().hasTag("write-ban")).toBe(false)
  })
})

describe("approval gate", () => {
  it("needs a task and a criterion", () => {
    const empty = run({ type: "plan.revise", tasks: [], criteria: ["c"], document: "" })
    expect(empty.can({ type: "plan.approve" })).toBe(false)
    expect(explainPlanRefusal(empty, { type: "plan.approve" })).toMatch(/approval gate: .*at least one task/)
  })

  it("passes only through the dialog: approve opens it, only allow leaves it approved", () => {
    const confirming = run({ type: "plan.approve" })
    expect(confirming.value).toEqual({ draft: "confirming" })
    expect(confirming.hasTag("awaiting-user")).toBe(true)
    expect(getNextSnapshot(planMachine, confirming, rejectOf(confirming)).value).toEqual({ draft: "editing" })
    expect(getNextSnapshot(planMachine, confirming, allowOf(confirming)).value).toEqual({ approved: "working" })
    // No other road leads to approved.
    expect(run().can({ type: "dialog.allow", dialog: 0 })).toBe(false)
  })

  it("revisions are for drafts only", () => {
    expect(approved().can({ type: "plan.revise", tasks: [], criteria: [], document: "" })).toBe(false)
    expect(run({ type: "plan.approve" }).can({ type: "plan.revise", tasks: [], criteria: [], document: "" })).toBe(false)
  })
})

describe("ticks", () => {
  it("tick an open task of an approved plan once", () => {
    const ticked = run({ type: "plan.approve" }, ALLOW, { type: "plan.tick", task: 2 })
    expect(ticked.context.tasks).toEqual([
      { number: 1, ticked: false },
      { number: 2, ticked: true },
    ])
    expect(ticked.can({ type: "plan.tick", task: 2 })).toBe(false)
    expect(explainPlanRefusal(ticked, { type: "plan.tick", task: 2 })).toMatch(/already ticked. Open tasks: 1/)
    expect(ticked.can({ type: "plan.tick", task: 3 })).toBe(false)
    expect(explainPlanRefusal(ticked, { type: "plan.tick", task: 3 })).toMatch(/no task 3/)
    expect(run().can({ type: "plan.tick", task: 1 })).toBe(false)
  })
})

describe("close gate", () => {
  const allTicked = () => run({ type: "plan.approve" }, ALLOW, { type: "plan.tick", task: 1 }, { type: "plan.tick", task: 2 })

  it("needs every task ticked", () => {
    const half = run({ type: "plan.approve" }, ALLOW, { type: "plan.tick", task: 1 })
    expect(half.can({ type: "plan.close", checks: passing })).toBe(false)
    expect(explainPlanRefusal(half, { type: "plan.close", checks: passing })).toMatch(/close gate: .*tasks not ticked: 2/)
  })

  it("needs exactly one passing check with evidence per criterion, and no stranger", () => {
    const plan = allTicked()
    const cases = [
      { checks: [login], why: /without one passing check.*Suite is green/ },
      { checks: [login, { ...green, pass: false }], why: /without one passing check/ },
      { checks: [login, { ...green, evidence: "  " }], why: /without one passing check/ },
      { checks: [...passing, login], why: /checked more than once: "Login works"/ },
      { checks: [...passing, { criterion: "Fast", pass: true, evidence: "x" }], why: /naming no criterion of the plan: "Fast"/ },
    ]
    for (const { checks, why } of cases) {
      expect(plan.can({ type: "plan.close", checks })).toBe(false)
      expect(explainPlanRefusal(plan, { type: "plan.close", checks })).toMatch(why)
    }
    expect(plan.can({ type: "plan.close", checks: passing })).toBe(true)
  })

  it("passes only through the dialog and keeps the checks for the narrative", () => {
    const confirming = getNextSnapshot(planMachine, allTicked(), { type: "plan.close", checks: passing })
    expect(confirming.value).toEqual({ approved: "confirming" })
    expect(confirming.context.pendingChecks).toEqual(passing)
    expect(getNextSnapshot(planMachine, confirming, rejectOf(confirming)).context.pendingChecks).toBeNull()
    const done = getNextSnapshot(planMachine, confirming, allowOf(confirming))
    expect(done.value).toBe("done")
    expect(done.status).toBe("done")
  })
})

describe("exits", () => {
  it("the user's discard from draft or approved is abandoned, supersede needs a successor", () => {
    expect(run({ type: "plan.discard", by: "user", reason: "wrong" }).value).toBe("abandoned")
    expect(run({ type: "plan.discard", by: "user" }).context.reason).toBeNull()
    expect(approved().can({ type: "plan.discard", by: "user" })).toBe(true)
    expect(run().can({ type: "plan.supersede", by: "user", successor: "  " })).toBe(false)
    const superseded = run({ type: "plan.supersede", by: "user", successor: ".opencode/crew/c.md", reason: "crew" })
    expect(superseded.value).toBe("superseded")
    expect(superseded.context).toMatchObject({ successor: ".opencode/crew/c.md", reason: "crew" })
  })

  it("the model's discard of a draft waits on the user's dialog; of an approved plan it does not", () => {
    const held = run({ type: "plan.discard", by: "model", reason: "let me write" })
    expect(held.value).toEqual({ draft: "discarding" })
    expect(held.hasTag("awaiting-user")).toBe(true)
    expect(held.can({ type: "tool.use", tool: "bash" })).toBe(false)
    expect(getNextSnapshot(planMachine, held, rejectOf(held)).value).toEqual({ draft: "editing" })
    const allowed = getNextSnapshot(planMachine, held, allowOf(held))
    expect(allowed.value).toBe("abandoned")
    expect(allowed.context.reason).toBe("let me write")
    const superseding = run({ type: "plan.supersede", by: "model", successor: ".opencode/crew/c.md" })
    expect(getNextSnapshot(planMachine, superseding, allowOf(superseding)).context).toMatchObject({ successor: ".opencode/crew/c.md" })
    expect(getNextSnapshot(planMachine, superseding, allowOf(superseding)).value).toBe("superseded")
    // One dialog at a time: the model cannot ask again while a dialog is open; the user's command still acts.
    expect(held.can({ type: "plan.discard", by: "model" })).toBe(false)
    expect(explainPlanRefusal(held, { type: "plan.discard", by: "model" })).toMatch(/waiting on the user's answer.*\/plan discard/)
    expect(getNextSnapshot(planMachine, held, { type: "plan.discard", by: "user" }).value).toBe("abandoned")
    expect(approved().can({ type: "plan.discard", by: "model" })).toBe(true)
    expect(getNextSnapshot(planMachine, approved(), { type: "plan.discard", by: "model" }).value).toBe("abandoned")
  })

  it("while the discard dialog is open, approval and revision wait for the user's answer and say so", () => {
    const held = run({ type: "plan.discard", by: "model" })
    for (const event of [{ type: "plan.approve" }, { type: "plan.revise", tasks: [], criteria: [], document: "" }] as PlanEvent[]) {
      expect(held.can(event)).toBe(false)
      expect(explainPlanRefusal(held, event)).toMatch(/waiting on the user's answer to an open dialog \(draft\.discarding\)/)
    }
  })

  it("a finished plan accepts nothing", () => {
    const done = run({ type: "plan.discard", by: "user" })
    for (const event of [{ type: "plan.approve" }, { type: "plan.bind", sessionId: "s2" }, { type: "plan.discard", by: "user" }] as PlanEvent[]) {
      expect(done.can(event)).toBe(false)
      expect(explainPlanRefusal(done, event)).toMatch(/finished plan accepts no further changes/)
    }
  })

  it("binding moves a live plan to another session", () => {
    expect(run({ type: "plan.bind", sessionId: "s2" }).context.sessionId).toBe("s2")
  })
})

describe("gate predicates", () => {
  it("isWriteBannedTool is exact for the named tools and catches patch tools", () => {
    expect(isWriteBannedTool("bash")).toBe(true)
    expect(isWriteBannedTool("forge_read")).toBe(false)
    expect(isWriteBannedTool("batch_patcher")).toBe(true)
  })
  it("criteria match ignoring case and whitespace runs", () => {
    expect(normalizeCriterion("  Suite\tIS   green ")).toBe("suite is green")
    expect(checkCoverage(["A b"], [{ criterion: "a  B", pass: true, evidence: "e" }])).toEqual({ missing: [], duplicated: [], unknown: [] })
  })
})

describe("document direction (issue 23 §1b)", () => {
  const statuses: PlanMachineStatus[] = ["draft", "approved", "done", "abandoned", "superseded"]
  it("only a status that passes approval or close is user-gated", () => {
    const gated = statuses.flatMap((from) => statuses.filter((to) => isUserGatedDocumentStatus(from, to)).map((to) => `${from}->${to}`))
    expect(gated.sort()).toEqual(
      ["abandoned->approved", "abandoned->done", "approved->done", "draft->approved", "draft->done", "superseded->approved", "superseded->done"].sort(),
    )
  })

  const changed = (status: PlanMachineStatus, tasks = input.tasks): PlanEvent => ({ type: "plan.document.changed", status, tasks, criteria: input.criteria })

  it("a draft holds approved and done, pending the user; a tightening status holds nothing (the host follows it)", () => {
    const held = run(changed("approved"))
    expect(held.value).toEqual({ draft: "editing" })
    expect(held.context.pendingDocument).toBe("approved")
    expect(held.hasTag("write-ban")).toBe(true)
    expect(run(changed("done")).context.pendingDocument).toBe("done")
    expect(run(changed("approved"), changed("abandoned")).context.pendingDocument).toBeNull()
    expect(run(changed("superseded")).context.pendingDocument).toBeNull()
    const ended = run({ type: "plan.discard", by: "user" })
    expect(ended.can(changed("approved"))).toBe(false)
    expect(explainPlanRefusal(ended, changed("approved"))).toMatch(/finished plan accepts no further changes/)
  })

  it("an approved plan holds done (tasks follow the document), and the approval dialog drops a held status", () => {
    const ticked = [
      { number: 1, ticked: true },
      { number: 2, ticked: true },
    ]
    const held = run({ type: "plan.approve" }, ALLOW, changed("done", ticked))
    expect(held.value).toEqual({ approved: "working" })
    expect(held.context).toMatchObject({ pendingDocument: "done", tasks: ticked })
    expect(getNextSnapshot(planMachine, held, changed("draft")).context.pendingDocument).toBeNull()
    expect(run(changed("approved"), { type: "plan.approve" }, ALLOW).context.pendingDocument).toBeNull()
  })

  it("a document that says the plan's own status again drops what was held", () => {
    const dropped = run({ type: "plan.approve" }, ALLOW, changed("done"), changed("approved"))
    expect(dropped.context.pendingDocument).toBeNull()
  })

  it("a held status is named in the draft's refusal and in every plan answer, with the dialog that confirms it", () => {
    const draft = run(changed("approved"))
    expect(explainPlanRefusal(draft, { type: "tool.use", tool: "bash" })).toContain("says status: approved, but the plan stays draft")
    expect(pendingDocumentNote(draft)).toContain("the approval dialog (plan_approve)")
    const approved = run({ type: "plan.approve" }, ALLOW, changed("done"))
    expect(pendingDocumentNote(approved)).toContain("/plan confirm, which goes through the close dialog (plan_close)")
    expect(pendingDocumentNote(run())).toBe("")
  })

  it("a snapshot written before the field existed reads as nothing pending", () => {
    const old = planMachine.resolveState({ value: { approved: "working" }, context: { ...approved().context, pendingDocument: undefined as unknown as null } })
    expect(pendingDocumentNote(old)).toBe("")
    expect(old.can(changed("done"))).toBe(true)
    const { pendingDocument: _none, ...persisted } = approved().context
    expect(planContextProblem(persisted)).toBeNull()
    expect(planContextProblem({ ...persisted, pendingDocument: "finished" })).toMatch(/pendingDocument/)
  })
})

describe("dialog numbers (issue 24: an answer names the dialog it answers)", () => {
  const plan = input.planPath
  const answers = (dialog: number): PlanEvent[] => [
    { type: "dialog.allow", dialog },
    { type: "dialog.reject", dialog },
  ]
  const ticked = () => run({ type: "plan.approve" }, ALLOW, { type: "plan.tick", task: 1 }, { type: "plan.tick", task: 2 })

  it("every entry into a dialog state opens a new dialog; leaving one keeps its number", () => {
    const confirming = run({ type: "plan.approve" })
    expect(run().context.dialog, "none at birth").toBe(0)
    expect(confirming.context.dialog).toBe(1)
    const discarding = run({ type: "plan.approve" }, REJECT, { type: "plan.discard", by: "model" })
    expect(discarding.context.dialog).toBe(2)
    const closing = getNextSnapshot(planMachine, ticked(), { type: "plan.close", checks: passing })
    expect(closing.value).toEqual({ approved: "confirming" })
    expect(closing.context.dialog).toBe(2)
    expect(getNextSnapshot(planMachine, closing, rejectOf(closing)).context.dialog).toBe(2)
  })

  it.each([
    ["the approval", () => run({ type: "plan.approve" }, REJECT, { type: "plan.approve" })],
    ["the discard", () => run({ type: "plan.discard", by: "model" }, REJECT, { type: "plan.discard", by: "model" })],
    [
      "the supersede",
      () => run({ type: "plan.supersede", by: "model", successor: "c.md" }, REJECT, { type: "plan.supersede", by: "model", successor: "c.md" }),
    ],
    [
      "the close",
      () =>
        run({ type: "plan.approve" }, ALLOW, { type: "plan.tick", task: 1 }, { type: "plan.tick", task: 2 }, { type: "plan.close", checks: passing }, REJECT, {
          type: "plan.close",
          checks: passing,
        }),
    ],
  ])("%s dialog takes the answer to the dialog open now and refuses one to the dialog it opened before", (_, reopened) => {
    const now = reopened()
    expect(now.hasTag("awaiting-user")).toBe(true)
    const open = now.context.dialog
    for (const stale of answers(open - 1)) {
      expect(now.can(stale), stale.type).toBe(false)
      const status = now.matches("draft") ? "draft" : "approved"
      expect(explainPlanRefusal(now, stale)).toBe(
        `answer refused: it is for dialog ${open - 1} of plan ${plan}, which closed while it was open (dialog ${open} was opened since; plan ${plan} is ${status} now: another command, or another opencode process on this workspace, moved it). This answer changes nothing. Ask again if it still matters.`,
      )
    }
    expect(explainPlanRefusal(now, { type: "dialog.allow", dialog: open + 1 })).toMatch(
      /^answer refused: it is for dialog \d+ of plan .*\(it holds no such dialog;/,
    )
    for (const current of answers(open)) expect(now.can(current), current.type).toBe(true)
  })

  it("two dialogs of one plan in the same state are told apart", () => {
    const first = run({ type: "plan.approve" })
    const second = run({ type: "plan.approve" }, REJECT, { type: "plan.approve" })
    expect(second.value).toEqual(first.value)
    expect(second.context.dialog).not.toBe(first.context.dialog)
    expect(second.can(allowOf(first))).toBe(false)
    expect(getNextSnapshot(planMachine, second, allowOf(second)).value).toEqual({ approved: "working" })
  })

  it("outside a dialog state an answer is refused as before", () => {
    expect(explainPlanRefusal(run(), { type: "dialog.allow", dialog: 0 })).toBe(`plan ${plan} is not waiting on a user dialog (it is draft.editing).`)
  })

  it("a record written before dialogs were numbered counts from 0; the field is required once upgraded", () => {
    const { dialog: _none, ...persisted } = approved().context
    expect(planContextProblem(persisted)).toMatch(/dialog/)
    const upgraded = upgradePlanRecord({ value: { approved: "working" }, context: persisted }, PLAN_MACHINE_VERSION)
    expect(upgraded.context).toEqual({ ...persisted, dialog: 0 })
    expect(planContextProblem(upgraded.context)).toBeNull()
    const today = { value: { draft: "confirming" }, context: run({ type: "plan.approve" }).context }
    expect(upgradePlanRecord(today, PLAN_MACHINE_VERSION)).toBe(today)
    expect(() => upgradePlanRecord(today, "0")).toThrow(/no upgrade from plan machine version 0/)
  })
})
