import { describe, expect, it } from "vitest"
import { SqliteLedgerStore } from "../../../adapters/storage/ledger.repository"
import { FsGoalFiles } from "../../../adapters/workspace/goal.files"
import { Completions } from "../../../services/completion/completion"
import type { GoalContract } from "../../../services/goal/goal.contract"
import { defineGoalLifecycle } from "../../../services/goal/goal.lifecycle"
import type { CheckOutcome } from "../../../services/goal/goal.ports"
import { GoalService } from "../../../services/goal/goal.service"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
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

  function harness() {
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
    const completions = new Completions({ store: new SqliteLedgerStore(ctx.rt.connection), clock: ctx.ws.clock, goals: async () => goals })
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
})
