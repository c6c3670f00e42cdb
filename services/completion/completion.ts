import * as z from "zod"
import { goalStatusOf } from "../../machines/goal/goal.status"
import { loopCompletionRefusal } from "../../machines/loop/loop.refusals"
import type { GoalService } from "../goal/goal.service"
import type { LoopSnapshot } from "../loop/loop.lifecycle"
import type { LoopService } from "../loop/loop.service"
import { Ledger, type LedgerDefinition } from "../lifecycle/ledger"
import type { LedgerStore } from "../lifecycle/ledger.ports"
import type { Clock, Confirm } from "../lifecycle/lifecycle.ports"

// attempt_completion: the model presents the result of the task. Inside a running loop it is refused in favour of
// loop_handoff (the loop machine's `handoff-only` tag). Under an active goal of the session the claim is no
// proof: the goal's own fail-closed completion gate decides (the host re-runs every check; the result is the evidence
// offered for each success criterion; then the user's dialog). Otherwise the result is recorded (a paused goal is named:
// this is not its completion) and the model is told to end its turn: opencode 1.18.33 runs the model again after
// every tool result, and only an answer without tool calls ends the turn, so no tool can end it by itself.

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

  constructor(private readonly deps: { store: LedgerStore; clock: Clock; goals: () => Promise<GoalService>; loops?: () => Promise<LoopService> }) {
    this.ledger = new Ledger(deps.store, completionLedgerDefinition)
  }

  async attempt(sessionId: string, result: string, confirm: Confirm): Promise<string> {
    // Inside a running loop the loop machine's own tag answers: a loop advances only by recorded handoffs.
    const loop = await this.loopOf(sessionId)
    if (loop?.hasTag("handoff-only")) throw new Error(loopCompletionRefusal(loop))
    const goals = await this.deps.goals()
    // Fail-closed: when the session's goals cannot be read, nothing is recorded as done past them (this throws).
    await goals.refresh()
    const goal = goals.liveFor(sessionId)
    // The goal machine's own tag says whether it drives the session: then the claim is no proof, its gate decides.
    if (goal?.hasTag("driving")) {
      const attestations = goal.context.contract.success.map((criterion) => ({ criterion, evidence: result }))
      return (await goals.complete(sessionId, attestations, confirm)).output
    }
    // A paused goal stays as it is: the model must not take this record for its completion.
    const paused =
      goal === undefined
        ? ""
        : ` The session's goal ${goal.context.goalPath} is ${goalStatusOf(goal.value)}: this result is not its completion, and it stays ${goalStatusOf(goal.value)} (goal_resume or /goal resume takes it up again; it completes only through the host's checks).`
    const end = "Your work on this task is done: tell the user the result in a few lines and end your turn."
    try {
      await this.ledger.append({ at: this.deps.clock.now(), sessionId, result })
    } catch (error) {
      // The record is a log; the result itself is the tool's answer, and a ledger Forge cannot write never withholds it.
      const why = (error instanceof Error ? error.message : String(error)).replace(/\.$/, "")
      return `Result presented, not recorded: ${why}.${paused} ${end}`
    }
    return `Result recorded.${paused} ${end}`
  }

  private async loopOf(sessionId: string): Promise<LoopSnapshot | undefined> {
    if (this.deps.loops === undefined) return undefined
    const loops = await this.deps.loops()
    await loops.refresh()
    return loops.loopOf(sessionId)
  }

  /** The results recorded for a session, oldest first. */
  async resultsOf(sessionId: string): Promise<CompletionEntry[]> {
    return (await this.ledger.query({ sessionId })).entries
  }
}
