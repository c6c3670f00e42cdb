import { readdirSync } from "node:fs"
import path from "node:path"
import { expect } from "vitest"
import { type SnapshotFrom, initialTransition } from "xstate"
import type { GoalLimits, GoalTerms } from "../../machines/goal/goal.gates"
import { type GoalInput, goalMachine } from "../../machines/goal/goal.machine"
import { explainGoalBirthRefusal } from "../../machines/goal/goal.refusals"
import type { GoalContract } from "../../services/goal/goal.contract"
import { liveGoalFact } from "../../services/goal/goal.lifecycle"
import { GOAL_DIR } from "../../services/goal/goal.paths"
import type { GoalService } from "../../services/goal/goal.service"
import { GateRefusal } from "../../services/lifecycle/gate.refusal"
import { neverAsked } from "./model.dialogs"

// The goal SUT's births through the real GoalService: goal_write as the model's input says it was asked, beside the
// session's live goal where the birth facts name one, and the birth gate's refusal in the machine's own words.

/** The objective of the session's live goal, armed before the model's goal is written where its birth facts name one. */
export const HELD_OBJECTIVE = "Held"

/** The contract with its budgets, as goal_write hands it to the service. */
export function contractOf(terms: GoalTerms, limits: GoalLimits): GoalContract {
  return {
    ...terms,
    budgets: {
      maxTurns: limits.maxTurns,
      maxMinutes: limits.maxMinutes,
      ...(limits.maxCost === null ? {} : { maxCost: limits.maxCost }),
      ...(limits.maxTokens === null ? {} : { maxTokens: limits.maxTokens }),
    },
  }
}

/** What a call that must fail failed with (undefined: it did not fail). */
function refusalOf(attempt: Promise<unknown>): Promise<unknown> {
  return attempt.then(
    () => undefined,
    (e: unknown) => e,
  )
}

/**
 * Writes the model's goal as its input says: arm=false (queued: the arm is a step of its own), or arm=true beside the
 * session's live goal (written and armed first by the user's own command), which the birth gate refuses in the
 * machine's words. Resolves to the goal's path, or undefined when it was refused.
 */
export async function writeModelGoal(service: GoalService, session: string, input: GoalInput): Promise<string | undefined> {
  const { armAsked, liveGoal } = input.birth
  if (liveGoal !== null) {
    const held = await service.write(session, contractOf({ ...input.contract, objective: HELD_OBJECTIVE }, input.limits), { by: "user" })
    expect(held.goalPath, "the live goal's path").toBe(liveGoal.path)
    expect(liveGoalFact(service.liveFor(session)), "the session's live goal").toEqual(liveGoal)
  }
  const born = initialTransition(goalMachine, input)[0]
  if (armAsked && !born.matches("refused")) throw new Error("a write that arms a goal it queues is the model's goal.arm step, not its birth")
  const contract = { ...contractOf(input.contract, input.limits), ...(input.audit === true ? { audit: true } : {}) }
  const writing = service.write(session, contract, armAsked ? { by: "model", confirm: neverAsked } : null)
  if (!born.matches("refused")) {
    const written = await writing
    expect(written.goalPath, "the goal's path").toBe(input.goalPath)
    return written.goalPath
  }
  const error = await refusalOf(writing)
  expect(error, "the birth gate refuses the write").toBeInstanceOf(GateRefusal)
  expect((error as Error).message, "the machine's refusal").toBe(explainGoalBirthRefusal(born))
  return undefined
}

/**
 * goal_write arm=true while the session's goal (`live`) is live: the new goal's birth gate refuses it, and nothing of
 * it is written beside the live goal's document.
 */
export async function expectArmRefusedBeside(
  service: GoalService,
  session: string,
  live: SnapshotFrom<typeof goalMachine>,
  input: GoalInput,
  dir: string,
): Promise<void> {
  const { goalPath, contract, limits } = live.context
  const attempt = service.write(session, contractOf(contract, limits), { by: "model", confirm: neverAsked })
  const refused = initialTransition(goalMachine, { ...input, birth: { armAsked: true, liveGoal: liveGoalFact(live) } })[0]
  expect(refused.value, "the new goal's birth").toBe("refused")
  expect(await refusalOf(attempt), "the birth gate's refusal").toEqual(new GateRefusal("goal", "xstate.init", explainGoalBirthRefusal(refused)))
  expect(readdirSync(path.join(dir, GOAL_DIR)), "no document of the refused goal").toEqual([path.basename(goalPath)])
}
