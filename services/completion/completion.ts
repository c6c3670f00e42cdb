import * as z from "zod"
import { goalStatusOf } from "../../machines/goal.status"
import type { GoalService } from "../goal/goal.service"
import { Ledger, type LedgerDefinition } from "../lifecycle/ledger"
import type { LedgerStore } from "../lifecycle/ledger.ports"
import type { Clock, Confirm } from "../lifecycle/lifecycle.ports"

// attempt_completion: the model presents the result of the task. Under an active goal of the session the claim is no
// proof: the goal's own fail-closed completion gate decides (the host re-runs every check; the result is the evidence
// offered for each success criterion; then the user's dialog). Otherwise the result is recorded and the turn ends.

const entrySchema = z.strictObject({ at: z.number(), sessionId: z.string().min(1), result: z.string() })
export type CompletionEntry = z.infer<typeof entrySchema>

export const completionLedgerDefinition: LedgerDefinition<CompletionEntry> = {
  name: "completion",
  title: "completion ledger",
  schema: entrySchema,
  keep: 200,
  indexOf: (entry) => ({ kind: "result", sessionId: entry.sessionId, subject: null, at: entry.at }),
}

export class Completions {
  private readonly ledger: Ledger<CompletionEntry>

  constructor(private readonly deps: { store: LedgerStore; clock: Clock; goals: () => Promise<GoalService> }) {
    this.ledger = new Ledger(deps.store, completionLedgerDefinition)
  }

  async attempt(sessionId: string, result: string, confirm: Confirm): Promise<string> {
    const goals = await this.deps.goals()
    await goals.refresh()
    const goal = goals.liveFor(sessionId)
    if (goal !== undefined && goalStatusOf(goal.value) === "active") {
      const attestations = goal.context.contract.success.map((criterion) => ({ criterion, evidence: result }))
      return (await goals.complete(sessionId, attestations, confirm)).output
    }
    await this.ledger.append({ at: this.deps.clock.now(), sessionId, result })
    return "Result recorded. Your work on this task is done: tell the user the result in a few lines and end your turn."
  }

  /** The results recorded for a session, oldest first. */
  async resultsOf(sessionId: string): Promise<CompletionEntry[]> {
    return (await this.ledger.query({ sessionId })).entries
  }
}
