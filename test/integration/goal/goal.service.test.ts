import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { FsGoalFiles } from "../../../adapters/workspace/goal.files"
import { runGoalCommand } from "../../../services/goal/goal.command"
import { parseGoalDocument } from "../../../services/goal/goal.document"
import { defineGoalLifecycle } from "../../../services/goal/goal.lifecycle"
import type { CheckOutcome } from "../../../services/goal/goal.ports"
import { GoalService } from "../../../services/goal/goal.service"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import { PLAN_BODY, allow, memoryLogger, openRuntime, useRuntime } from "../plan/plan.helpers"
import { TWO_CHECK_CONTRACT } from "./goal.contract.fixture"
import { handDrivenLoop } from "./goal.loop.helpers"
import { ClaimBusyError, type DriverClaimStore } from "../../../services/lifecycle/driver.claim.ports"

// The goal service over the real runtime: SQLite, the one lifecycle host, real documents, the plan service for the
// draft-plan gate. Only the check runner is scripted (the real one is tested with real processes in goal.checks.test.ts).

const CONTRACT = { ...TWO_CHECK_CONTRACT, constraints: ["no dependency bumps"] }

const fail = (summary: string, outputTail: string): CheckOutcome => ({ pass: false, summary, outputTail })
const pass: CheckOutcome = { pass: true, summary: "exit code 0", outputTail: "" }

/** The goal folder, whose reads throw while `failing()` says so (a disk that went away, a file being replaced). */
class FailingGoalFiles extends FsGoalFiles {
  failing: () => boolean = () => false

  override async read(relativePath: string): Promise<string | undefined> {
    if (this.failing()) throw new Error(`EIO: i/o error, open '${relativePath}'`)
    return super.read(relativePath)
  }
}

function harness(ctx: ReturnType<typeof useRuntime>) {
  /** The outcomes the next checks run with, in order; a check with none scripted passes. */
  const outcomes: CheckOutcome[] = []
  /** How many checks the runner ran. */
  const counter = { runs: 0 }
  const log = memoryLogger()
  const files = new FailingGoalFiles(ctx.ws.dir)
  const lifecycle = defineGoalLifecycle(ctx.rt.host, { files, clock: ctx.ws.clock, log, prompter: { send: async () => {} } })
  const service = new GoalService({
    lifecycle,
    files,
    clock: ctx.ws.clock,
    log,
    hasDraftPlan: (session) => ctx.rt.plans.hasDraft(session),
    checks: {
      run: async () => {
        counter.runs += 1
        return outcomes.shift() ?? pass
      },
    },
  })
  const doc = (goalPath: string) => parseGoalDocument(readFileSync(path.join(ctx.ws.dir, goalPath), "utf8"), goalPath)
  return { service, outcomes, log, doc, lifecycle, counter, files }
}

describe("goal service", () => {
  const ctx = useRuntime()

  it("arms through the dialog, and completes only when the host's own run passes every check", async () => {
    const { service, outcomes, doc } = harness(ctx)
    const armed = await service.write("s1", CONTRACT, { by: "model", confirm: allow })
    expect(armed.output).toMatch(/^Goal armed: \.opencode\/goal\/\d{4}-\d\d-\d\d-make-the-suite-green\.md/)
    expect(doc(armed.goalPath).frontmatter).toMatchObject({ status: "active", session: "s1", revision: 1 })

    outcomes.push(fail("exit code 1", "FAIL src/a.test.ts\n1 failed"), fail("text not found", ""))
    const refused = service.complete("s1", [{ criterion: "zero failing tests", evidence: "npm test" }], allow)
    await expect(refused).rejects.toThrow(GateRefusal)
    await expect(refused).rejects.toThrow(/completion gate: .* checks 1, 2 did not pass/)
    await expect(refused).rejects.toThrow(/FAIL check 1 `npm test` — exit code 1[\s\S]*1 failed/)
    expect(doc(armed.goalPath).checkLog.map((e) => [e.item, e.pass])).toEqual([
      [1, false],
      [2, false],
    ])

    const done = await service.complete("s1", [{ criterion: "zero failing tests", evidence: "npm test: 12 passed" }], allow)
    expect(done.output).toContain("Goal completed")
    expect(doc(armed.goalPath).frontmatter.status).toBe("completed")
    expect(service.liveFor("s1")).toBeUndefined()
  })

  it("/goal after a goal finished shows how it ended: outcome, turns, time and the checks' last run, in any later process", async () => {
    const { service } = harness(ctx)
    const armed = await service.write("s1", CONTRACT, { by: "model", confirm: allow })
    ctx.ws.clock.advance(5 * 60_000)
    await service.complete("s1", [{ criterion: "zero failing tests", evidence: "npm test: 12 passed" }], allow)
    const shown = await service.overview("s1")
    expect(shown).toContain("No live goal in this session.")
    expect(shown).toContain(
      `Last finished goal: ${armed.goalPath} [completed] at ${new Date(ctx.ws.clock.now()).toISOString()}, 0 of 5 turns, 5 min from arming to its end`,
    )
    expect(shown).toMatch(/checks at their last run \(.+\): 2 of 2 passed\n {4}PASS 1\. .*npm test.* \(\d+ ms\)\n {4}PASS 2\. .*CHANGELOG\.md/)
    expect(await service.overview("s2"), "another session finished nothing").not.toContain("Last finished goal")

    // The newest finished goal is the one shown, an abandoned one with why; a process started later shows it too.
    await service.write("s1", { ...CONTRACT, objective: "second try" }, { by: "model", confirm: allow })
    ctx.ws.clock.advance(60_000)
    const discarded = await service.discard("s1", { by: "user" }, "discarded by the user with /goal discard")
    await ctx.rt.close()
    ctx.rt = await openRuntime(ctx.ws.dir, ctx.ws.clock)
    const later = await harness(ctx).service.overview("s1")
    expect(later).toContain(`Last finished goal: ${discarded.goalPath} [abandoned]`)
    expect(later).toContain("why: discarded by the user with /goal discard")
    expect(later).toContain("checks: none ran (2 declared)")
  })

  it("a second completion while the first one's dialog is open is refused at once, no check run again", async () => {
    const { service, counter } = harness(ctx)
    await service.write("s1", CONTRACT, { by: "model", confirm: allow })
    let answer: (allowed: boolean) => void = () => undefined
    const asked = new Promise<void>((opened) => {
      const first = service.complete("s1", [{ criterion: "zero failing tests", evidence: "npm test: 12 passed" }], () => {
        opened()
        return new Promise<boolean>((res) => {
          answer = res
        })
      })
      void first.catch(() => undefined)
    })
    await asked
    expect(counter.runs, "the first completion ran both checks").toBe(2)
    const second = service.complete("s1", [{ criterion: "zero failing tests", evidence: "again" }], allow)
    await expect(second).rejects.toThrow(GateRefusal)
    await expect(second).rejects.toThrow(/waiting on the user's answer/)
    expect(counter.runs, "the second ran none").toBe(2)
    answer(false)
  })

  it("refuses to arm while the session has a draft plan, and keeps the goal queued", async () => {
    const { service, doc } = harness(ctx)
    await ctx.rt.plans.write("s1", PLAN_BODY)
    const outcome = await service.write("s1", CONTRACT, { by: "model", confirm: allow })
    expect(outcome.output).toContain("draft-conflict gate")
    expect(doc(outcome.goalPath).frontmatter.status).toBe("queued")
    expect(service.queue().map((g) => g.context.goalPath)).toEqual([outcome.goalPath])
  })

  it("a hand edit of a paused goal's contract is taken in as a new revision, and the document says what changed", async () => {
    const { service, doc, lifecycle } = harness(ctx)
    const { goalPath } = await service.write("s1", CONTRACT, { by: "model", confirm: allow })
    await service.pause("s1", "user")
    const file = path.join(ctx.ws.dir, goalPath)
    const text = readFileSync(file, "utf8")
    writeFileSync(
      file,
      text.replace("1. command `npm test` (timeout 120 s)", "1. command `npm run ci` (timeout 300 s)").replace("max_turns: 5", "max_turns: 9"),
    )
    await service.resume("s1", { by: "user" })
    const after = doc(goalPath)
    expect(after.frontmatter).toMatchObject({ status: "active", revision: 2, max_turns: 9 })
    expect(after.revisions.at(-1)).toMatch(/revision 2 \(hand edit\): .*npm run ci.*max_turns 5 → 9/)
    expect(lifecycle.snapshot(goalPath)?.context.contract.checks[0]).toEqual({ kind: "command", command: "npm run ci", timeoutS: 300 })
  })

  it("a queued goal edited by hand is armed on the contract the document says, as a new revision", async () => {
    const { service, doc, lifecycle } = harness(ctx)
    const { goalPath } = await service.write("s1", CONTRACT, null)
    const file = path.join(ctx.ws.dir, goalPath)
    writeFileSync(file, readFileSync(file, "utf8").replace("- zero failing tests", "- zero failing tests\n- the changelog is updated"))
    expect((await service.resume("s1", { by: "user" })).output).toContain("Goal armed")
    expect(doc(goalPath).frontmatter).toMatchObject({ status: "active", revision: 2 })
    expect(doc(goalPath).revisions.at(-1)).toMatch(/revision 2 \(hand edit\): added criterion "the changelog is updated"/)
    expect(lifecycle.snapshot(goalPath)?.context.contract.success).toEqual(["zero failing tests", "the changelog is updated"])
  })

  it("queues with /goal add, promotes the oldest with /goal resume, and shows both with /goal", async () => {
    const { service } = harness(ctx)
    const first = await runGoalCommand(service, "s1", 'add fix the login --check "npm test"')
    expect(first.user).toContain("Goal queued")
    ctx.ws.clock.advance(1_000)
    await runGoalCommand(service, "s1", 'add ship the docs --check "npm run docs"')
    const overview = await runGoalCommand(service, "s1", "")
    expect(overview.user).toMatch(/No live goal in this session\.\nQueue \(2, oldest first[^\n]*\n {2}- \.opencode\/goal\/[^\n]*fix-the-login/)
    const resumed = await runGoalCommand(service, "s1", "resume")
    expect(resumed.user).toContain("Goal armed")
    expect(service.liveFor("s1")?.context.goalPath).toMatch(/fix-the-login\.md$/)
    expect(service.queue()).toHaveLength(1)
    const stopped = await runGoalCommand(service, "s1", "stop")
    expect(stopped.user).toMatch(/Goal discarded: .*fix-the-login/)
  })

  it("one live goal per session: the birth gate refuses an arm beside it (nothing written), a queued write goes through", async () => {
    const { service, lifecycle } = harness(ctx)
    const live = await service.write("s1", CONTRACT, { by: "model", confirm: allow })
    await service.pause("s1", "user")
    ctx.ws.clock.advance(1_000)
    const refused = service.write("s1", { ...CONTRACT, objective: "ship the docs" }, { by: "model", confirm: allow })
    await expect(refused).rejects.toThrow(GateRefusal)
    await expect(refused).rejects.toThrow(
      `this session already has a live goal: ${live.goalPath} (paused). Revise it with goal_write revise=true, finish it, or discard it (/goal discard); goal_write arm=false queues a new goal instead.`,
    )
    expect(await new FsGoalFiles(ctx.ws.dir).list(), "no document of the refused goal").toEqual([live.goalPath])
    expect(await ctx.rt.repository.instanceIds("goal"), "no record of it").toEqual([live.goalPath])
    // /goal add (no arm) beside the live goal queues it; its birth facts say what the gate saw.
    const added = await runGoalCommand(service, "s1", 'add ship the docs --check "npm run docs"')
    expect(added.user).toContain("Goal queued")
    const [queued] = service.queue()
    expect(queued?.context.birth).toEqual({ armAsked: false, liveGoal: { path: live.goalPath, status: "paused" } })
    expect(lifecycle.snapshot(live.goalPath)?.context.birth).toEqual({ armAsked: true, liveGoal: null })
  })

  it("answers a malformed /goal in the turn, naming the marker, and writes nothing", async () => {
    const { service } = harness(ctx)
    const unterminated = await runGoalCommand(service, "s1", 'make it green --check "npm test')
    expect(unterminated.user).toMatch(/\/goal: .*quot/i)
    const noSeparator = await runGoalCommand(service, "s1", "make it green --contains README.md")
    expect(noSeparator.user).toContain("--contains")
    const ceiling = await runGoalCommand(service, "s1", "make it green --max-turns 500")
    expect(ceiling.user).toContain("--max-turns")
    expect(await new FsGoalFiles(ctx.ws.dir).list()).toEqual([])
  })
})

describe("a failure while a goal is armed", () => {
  const ctx = useRuntime()

  it("a document read that throws once the arm dialog is due returns the goal to queued, says why, and a later arm works", async () => {
    const { service, lifecycle, files } = harness(ctx)
    const { goalPath } = await service.write("s1", CONTRACT, null)
    files.failing = () => lifecycle.snapshot(goalPath)?.hasTag("awaiting-user") === true
    await expect(service.resume("s1", { by: "model", confirm: allow })).rejects.toThrow(
      `goal ${goalPath} could not be armed: EIO: i/o error, open '${goalPath}'. It stays queued: arm it again (/goal resume) once its document can be read, or discard it.`,
    )
    expect(lifecycle.snapshot(goalPath)?.value).toEqual({ queued: "waiting" })
    files.failing = () => false
    expect((await service.resume("s1", { by: "model", confirm: allow })).output).toContain(`Goal armed: ${goalPath}`)
  })
})

describe("a goal whose document was mangled while it was paused", () => {
  const ctx = useRuntime()

  it("once resumed, its loop says why it cannot drive it, in the session and on /goal", async () => {
    const { service, lifecycle, log } = harness(ctx)
    const { loop, told, fire } = handDrivenLoop({ lifecycle, clock: ctx.ws.clock, log })
    service.stalledWhy = (goalPath) => loop.stalledWhy(goalPath)
    const { goalPath } = await service.write("s1", CONTRACT, { by: "user" })
    await service.pause("s1", "user")
    // The contract's sections are gone; the frontmatter still reads.
    const file = path.join(ctx.ws.dir, goalPath)
    writeFileSync(file, readFileSync(file, "utf8").replace(/\n## [\s\S]*$/, "\n## Objective\n\n"))
    expect((await service.resume("s1", { by: "user" })).output).toContain("Goal resumed")
    await loop.sessionIdle("s1")
    fire(5_000)
    await expect.poll(() => told.length).toBe(1)
    const why = `goal ${goalPath} cannot be driven: ${goalPath}:15: the "Objective" section is empty: it holds the goal's objective. Fix the goal document (or discard the goal with /goal discard); the loop keeps trying meanwhile.`
    expect(told[0]).toEqual({ session: "s1", text: `[forge:goal-stalled] ${why}` })
    expect(await service.overview("s1")).toContain(`Driver: stalled: ${why}`)
    loop.dispose()
  })
})

describe("a goal whose loop finds the database locked at its deadline", () => {
  const ctx = useRuntime()

  it("tells nobody, names no stall, and takes the claim at its next look a moment later", async () => {
    const { service, lifecycle, log } = harness(ctx)
    let locked = true
    let taken = 0
    // The store as SQLite answers when another connection held the write lock past the busy wait.
    const store: DriverClaimStore = {
      read: async () => null,
      list: async () => [],
      take: async (_machine, _instance, decide) => {
        if (locked) {
          locked = false
          throw new ClaimBusyError("the driver claim of goal g could not be taken now: the database stayed locked")
        }
        taken++
        return decide(null) ?? null
      },
      renew: async () => undefined,
      release: async () => undefined,
    }
    const { loop, due: pending, told, fire } = handDrivenLoop({ lifecycle, clock: ctx.ws.clock, log, store })
    service.stalledWhy = (goalPath) => loop.stalledWhy(goalPath)
    const { goalPath } = await service.write("s1", CONTRACT, { by: "user" })
    await loop.sessionIdle("s1")
    fire(5_000)
    // The locked take: a look again about a second later, nothing told, no stall on /goal.
    await expect.poll(() => pending.length).toBe(1)
    expect(pending[0]?.ms).toBe(1_000)
    expect(told).toEqual([])
    expect(loop.stalledWhy(goalPath)).toBeUndefined()
    expect(log.lines.some((line) => line.includes("the database stayed locked; trying again in 1000 ms"))).toBe(true)
    fire(1_000)
    await expect.poll(() => taken).toBe(1)
    expect(told).toEqual([])
    loop.dispose()
  })
})
