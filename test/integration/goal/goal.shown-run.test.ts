import { describe, expect, it } from "vitest"
import type { CheckOutcome } from "../../../services/goal/goal.ports"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import type { DialogRequest } from "../../../services/lifecycle/lifecycle.ports"
import { allow, useRuntime } from "../plan/plan.helpers"
import { TWO_CHECK_CONTRACT, goalServiceOn } from "./goal.contract.fixture"

// The completion dialog decides on the run its call's line showed (goal.runs.ts): opencode's TUI draws the line before
// the call runs anything, and the dialog itself says only "Call tool goal_complete". The real service over SQLite; the
// check runner is scripted.

const ATTESTED = [{ criterion: "zero failing tests", evidence: "npm test: 12 passed" }]
const pass: CheckOutcome = { pass: true, summary: "exit code 0", outputTail: "" }

function harness(ctx: ReturnType<typeof useRuntime>) {
  const outcomes: CheckOutcome[] = []
  const counter = { runs: 0 }
  const { service } = goalServiceOn(ctx, {
    run: async () => {
      counter.runs += 1
      return outcomes.shift() ?? pass
    },
  })
  const asked: DialogRequest[] = []
  const confirm = async (request: DialogRequest) => {
    asked.push(request)
    return allow(request)
  }
  /** What the completion call's line shows: the latest run of the goal, noted as shown (the goal fragment's screen). */
  const drawLine = (tool = "goal_complete") => {
    const goalPath = service.liveFor("s1")?.context.goalPath ?? ""
    service.runs.show("s1", { run: service.runs.latestOf(goalPath) ?? null, tool })
  }
  return { service, outcomes, counter, asked, confirm, drawLine }
}

/** The error a call fails with (it must fail). */
async function failure(call: Promise<unknown>): Promise<Error> {
  try {
    await call
  } catch (error) {
    return error as Error
  }
  throw new Error("the call did not fail")
}

describe("the completion dialog shows the run its line showed", () => {
  const ctx = useRuntime()

  it("a line with no run is refused by the completion gate with the host's run and no dialog; the next call's line shows it, the host runs every check again, and the dialog opens", async () => {
    const { service, counter, asked, confirm, drawLine } = harness(ctx)
    const { goalPath } = await service.write("s1", TWO_CHECK_CONTRACT, { by: "model", confirm: allow })
    drawLine()
    const first = await failure(service.complete("s1", ATTESTED, confirm))
    expect(first).toBeInstanceOf(GateRefusal)
    expect(first.message).toContain(`Checks of ${goalPath} (revision 1, the host's own run at the completion gate): 2 of 2 passed.`)
    expect(first.message).toContain("completion gate: the user has not seen a passing run of every check of revision 1")
    expect(first.message).toContain("this call's line had no run to show")
    expect(first.message).toContain("call goal_complete again with the same arguments; its line shows this run")
    expect(asked, "no dialog on a line that showed no run").toEqual([])
    expect(counter.runs).toBe(2)
    expect(service.liveFor("s1")?.hasTag("driving"), "the goal still drives").toBe(true)

    drawLine()
    const done = await service.complete("s1", ATTESTED, confirm)
    expect(done.output).toContain(`Goal completed: ${goalPath}`)
    expect(counter.runs, "every check ran once more before the dialog").toBe(4)
    expect(asked).toHaveLength(1)
    expect(asked[0]?.summary).toMatch(/^Complete goal "make the suite green"\? The host ran all 2 checks \(run r\w+\): `npm test`: exit code 0, 0\.0 s, PASS; /)
  })

  it("a line that showed a failing run, or one of an earlier revision, are refused too; attempt_completion is named as the call to repeat", async () => {
    const { service, outcomes, asked, confirm, drawLine } = harness(ctx)
    await service.write("s1", TWO_CHECK_CONTRACT, { by: "model", confirm: allow })
    outcomes.push({ pass: false, summary: "exit code 1", outputTail: "1 failed" })
    await service.check("s1")
    drawLine("attempt_completion")
    const answered = await failure(service.complete("s1", ATTESTED, confirm))
    expect(answered.message).toContain("this call's line showed a run that is no pass of every check of this revision")
    expect(answered.message).toContain("call attempt_completion again with the same arguments")
    expect(asked).toEqual([])

    await service.revise("s1", { ...TWO_CHECK_CONTRACT, checks: [{ kind: "command", command: "npm test", timeoutS: 60 }] }, {}, "goal_write")
    drawLine()
    const stale = await failure(service.complete("s1", ATTESTED, confirm))
    expect(stale.message, "the run it showed was of revision 1").toContain("the user has not seen a passing run of every check of revision 2")
    drawLine()
    expect((await service.complete("s1", ATTESTED, confirm)).output).toContain("Goal completed")
  })

  it("a line that showed a passing run still refuses when the host's run now fails, with that run's report", async () => {
    const { service, outcomes, asked, confirm, drawLine } = harness(ctx)
    await service.write("s1", TWO_CHECK_CONTRACT, { by: "model", confirm: allow })
    await service.check("s1")
    drawLine()
    outcomes.push({ pass: false, summary: "exit code 1", outputTail: "FAIL src/a.test.ts" })
    const refused = service.complete("s1", ATTESTED, confirm)
    await expect(refused).rejects.toThrow(GateRefusal)
    await expect(refused).rejects.toThrow(/FAIL check 1 `npm test` — exit code 1[\s\S]*FAIL src\/a\.test\.ts/)
    expect(asked).toEqual([])
  })

  it("with no line drawn (a harness of its own), the dialog opens on the host's passing run, its words listing each check", async () => {
    const { service, asked, confirm } = harness(ctx)
    await service.write("s1", TWO_CHECK_CONTRACT, { by: "model", confirm: allow })
    expect((await service.complete("s1", ATTESTED, confirm)).output).toContain("Goal completed")
    expect(asked[0]?.summary).toContain("`CHANGELOG.md :: ## Unreleased`: exit code 0, 0.0 s, PASS. zero failing tests: npm test: 12 passed")
  })

  it("a line that showed no run still names a gate the attestations fail, rather than asking for another call", async () => {
    const { service, asked, confirm, drawLine } = harness(ctx)
    await service.write("s1", TWO_CHECK_CONTRACT, { by: "model", confirm: allow })
    drawLine()
    await expect(service.complete("s1", [], confirm)).rejects.toThrow(GateRefusal)
    expect(asked).toEqual([])
  })
})
