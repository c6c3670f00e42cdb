import { describe, expect, it } from "vitest"
import { SqliteLedgerStore } from "../../../adapters/storage/ledger.repository"
import { FsGoalFiles } from "../../../adapters/workspace/goal.files"
import { Completions } from "../../../services/completion/completion"
import type { GoalContract } from "../../../services/goal/goal.contract"
import { defineGoalLifecycle } from "../../../services/goal/goal.lifecycle"
import type { CheckOutcome } from "../../../services/goal/goal.ports"
import { GoalService } from "../../../services/goal/goal.service"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import type { LedgerStore } from "../../../services/lifecycle/ledger.ports"
import type { DialogRequest } from "../../../services/lifecycle/lifecycle.ports"
import { memoryLogger, useRuntime } from "../plan/plan.helpers"

// attempt_completion over the real runtime (SQLite, the goal service, real goal documents); only the goal's check
// runner is scripted, as in the goal service's own tests.

const CONTRACT: GoalContract = {
  objective: "ship the parser",
  success: ["the parser reads numbers", "the parser reads strings"],
  checks: [{ kind: "command", command: "npm test", timeoutS: 120 }],
  constraints: [],
  nonGoals: [],
  budgets: { maxTurns: 5, maxMinutes: 30 },
}

describe("attempt_completion", () => {
  const ctx = useRuntime()

  function harness(store?: LedgerStore) {
    const outcomes: CheckOutcome[] = []
    const files = new FsGoalFiles(ctx.ws.dir)
    const log = memoryLogger()
    const lifecycle = defineGoalLifecycle(ctx.rt.host, { files, clock: ctx.ws.clock, log, prompter: { send: async () => {} } })
    const goals = new GoalService({
      lifecycle,
      files,
      clock: ctx.ws.clock,
      log,
      hasDraftPlan: async () => false,
      checks: { run: async () => outcomes.shift() ?? { pass: true, summary: "exit code 0", outputTail: "" } },
    })
    const completions = new Completions({ store: store ?? new SqliteLedgerStore(ctx.rt.connection), clock: ctx.ws.clock, goals: async () => goals })
    const dialogs: DialogRequest[] = []
    const allow = async (request: DialogRequest) => {
      dialogs.push(request)
      return true
    }
    return { goals, completions, outcomes, dialogs, allow }
  }

  it("without a goal, records the result and ends the turn", async () => {
    const { completions, allow, dialogs } = harness()
    expect(await completions.attempt("s1", "parser done: 12 tests pass", allow)).toMatch(/^Result recorded\. .*end your turn\.$/)
    expect((await completions.resultsOf("s1")).map((e) => e.result)).toEqual(["parser done: 12 tests pass"])
    expect(dialogs).toEqual([])
  })

  it("under an active goal, is the goal's fail-closed completion: the host re-runs every check, the result is each criterion's evidence", async () => {
    const { goals, completions, outcomes, allow, dialogs } = harness()
    await goals.write("s1", CONTRACT, { by: "model", confirm: allow })
    outcomes.push({ pass: false, summary: "exit code 1", outputTail: "1 failed" })
    await expect(completions.attempt("s1", "all done", allow)).rejects.toThrow(GateRefusal)
    expect(goals.liveFor("s1")?.context.goalPath).toBeDefined()
    expect(await completions.attempt("s1", "numbers and strings parse: 12 tests pass", allow)).toMatch(/^Goal completed: /)
    expect(dialogs.at(-1)?.permission).toBe("goal_complete")
    expect(dialogs.at(-1)?.summary).toContain("the parser reads strings: numbers and strings parse: 12 tests pass")
    expect(goals.liveFor("s1")).toBeUndefined()
    // A completed goal is no proof gate any more: the result is only recorded.
    expect(await completions.resultsOf("s1")).toEqual([])
  })

  it("under a paused goal, records the result but says the goal is not completed by it", async () => {
    const { goals, completions, allow, dialogs } = harness()
    await goals.write("s1", CONTRACT, { by: "model", confirm: allow })
    const goalPath = goals.liveFor("s1")?.context.goalPath as string
    await goals.pause("s1", "user")
    dialogs.length = 0
    const output = await completions.attempt("s1", "half of the parser", allow)
    expect(output).toMatch(/^Result recorded\. /)
    expect(output).toContain(`goal ${goalPath} is paused`)
    expect(output).toContain("not its completion")
    expect(dialogs).toEqual([])
    expect(goals.liveFor("s1")?.hasTag("live")).toBe(true)
    expect((await completions.resultsOf("s1")).map((e) => e.result)).toEqual(["half of the parser"])
  })

  it("under another session's goal, only records the result", async () => {
    const { goals, completions, allow, dialogs } = harness()
    await goals.write("s1", CONTRACT, { by: "model", confirm: allow })
    dialogs.length = 0
    expect(await completions.attempt("s2", "a side task", allow)).toMatch(/^Result recorded\. .*end your turn\.$/)
    expect(dialogs).toEqual([])
    expect(goals.liveFor("s1")).toBeDefined()
  })

  it("keeps the newest 200 results across sessions", async () => {
    const { completions, allow } = harness()
    for (let i = 0; i < 201; i++) await completions.attempt(i % 2 === 0 ? "s1" : "s2", `result ${i}`, allow)
    const all = [...(await completions.resultsOf("s1")), ...(await completions.resultsOf("s2"))]
    expect(all).toHaveLength(200)
    expect(all.map((e) => e.result)).not.toContain("result 0")
    expect(all.map((e) => e.result)).toContain("result 200")
  })

  it("a ledger that cannot be written costs the record, not the result: the model is told why", async () => {
    const broken: LedgerStore = {
      append: async () => {
        throw new Error("SQLITE_FULL: database or disk is full")
      },
      query: async () => [],
    }
    const { completions, allow } = harness(broken)
    const output = await completions.attempt("s1", "parser done", allow)
    expect(output).toMatch(/^Result presented, not recorded: SQLITE_FULL: database or disk is full\./)
    expect(output).toContain("end your turn")
  })
})
