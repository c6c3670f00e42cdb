import { rmSync } from "node:fs"
import { afterEach, describe, expect, it } from "vitest"
import type { GoalCheckTerm } from "../../../machines/goal/goal.gates"
import type { GoalContract } from "../../../services/goal/goal.contract"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import { neverAsked } from "../../model/model.dialogs"
import { seedMigratedDatabase } from "../../model/migrated.database"
import { type GoalProcess, openGoalProcess } from "../../model/goal.process"
import { ramTempDir } from "../../temp.dir"

// A goal's audit where its auditor cannot be confined: fail-closed. The real GoalService, GoalAudits and lifecycle host
// on SQLite; the auditor sessions and the sandbox's answer are the edges.

const SESSION = "ses_goal"
const checks: GoalCheckTerm[] = [{ kind: "command", command: "npm test", timeoutS: 60 }]
const contract: GoalContract = {
  objective: "make the suite green",
  success: ["the suite is green"],
  checks,
  constraints: [],
  nonGoals: [],
  audit: true,
  budgets: { maxTurns: 5, maxMinutes: 60 },
}
const attestations = [{ criterion: "the suite is green", evidence: "npm test passes" }]

const open: { dir: string; process: GoalProcess }[] = []
afterEach(async () => {
  for (const { dir, process } of open.splice(0)) {
    await process.rt.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

async function armedGoal(options: { sandboxProblem?: string; withoutAuditor?: boolean } = {}): Promise<GoalProcess> {
  const dir = ramTempDir("forge-goal-audit-")
  await seedMigratedDatabase(dir)
  const process = await openGoalProcess(dir, Date.parse("2026-12-05T08:00:00.000Z"), options)
  open.push({ dir, process })
  process.runner.checks = checks
  // The user's own /goal arms it at once: its command is its own allow.
  await process.service.write(SESSION, contract, { by: "user" })
  return process
}

describe("goal audit, fail-closed", () => {
  it("refuses the completion when the auditor's shells cannot be confined here, naming how to get past it; no session opens", async () => {
    const process = await armedGoal({ sandboxProblem: "bwrap: setting up uid map: Permission denied" })
    const attempt = process.service.complete(SESSION, attestations, neverAsked)
    await expect(attempt).rejects.toBeInstanceOf(GateRefusal)
    await expect(attempt).rejects.toThrow(
      /^completion gate: the audit of goal \.opencode\/goal\/.* could not finish: the auditor's shells cannot be confined here: bwrap: setting up uid map: Permission denied\. Install bubblewrap \(apt install bubblewrap\), or set the plugin option loop\.sandbox to "off"/,
    )
    expect(process.auditSessions.isOpening, "no auditor session was asked for").toBe(false)
    expect(process.auditSessions.sent).toEqual([])
    const goal = process.service.liveFor(SESSION)
    expect(goal?.value).toEqual({ active: "working" })
    expect(goal?.context.audit).toMatchObject({ base: "tree-at-arm", rounds: 1, session: null, last: { outcome: "failed" } })
  })

  it("fails the audit of a harness with no auditor, so nothing completes unaudited", async () => {
    const process = await armedGoal({ withoutAuditor: true })
    await expect(process.service.complete(SESSION, attestations, neverAsked)).rejects.toThrow(
      /could not finish: this harness runs no auditor sessions, so a goal written with an audit cannot complete here/,
    )
  })
})
