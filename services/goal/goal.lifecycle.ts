import type { SnapshotFrom } from "xstate"
import { type GoalMachine, goalMachine } from "../../machines/goal.machine"
import { explainGoalRefusal } from "../../machines/goal.refusals"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { LifecycleHost } from "../lifecycle/lifecycle.host"
import { goalContextProblem, upgradeGoalRecord } from "./goal.context"
import { type GoalImplementationDeps, createGoalImplementations } from "./goal.implementations"

export type GoalSnapshot = SnapshotFrom<GoalMachine>

/** The key a session's one live goal holds in the database, whichever process wrote it. */
export function liveGoalKey(sessionId: string | null, live: boolean): string | null {
  return live && sessionId !== null ? `goal:session:${sessionId}` : null
}

/** The goal lifecycle on the one host: its machine, its document writes and prompts, its refusals, its records. */
export function defineGoalLifecycle(host: LifecycleHost, deps: GoalImplementationDeps): Lifecycle<GoalMachine> {
  return host.define({
    machine: goalMachine,
    implementations: createGoalImplementations(deps),
    explain: explainGoalRefusal,
    metaOf: (snapshot) => ({
      sessionId: snapshot.context.sessionId,
      document: snapshot.context.goalPath,
      exclusiveKey: liveGoalKey(snapshot.context.sessionId, snapshot.hasTag("live")),
    }),
    contextProblem: goalContextProblem,
    upgrade: upgradeGoalRecord,
    // Any opencode process on the workspace may step a goal, each step decided on the latest committed record: of two
    // processes whose debounce ends together, one sends the brief and the other finds the loop already moved on.
    shared: true,
  })
}
