import type { SnapshotFrom } from "xstate"
import { type GoalBirthFacts, type GoalMachine, goalMachine } from "../../machines/goal/goal.machine"
import { explainGoalBirthRefusal, explainGoalRefusal } from "../../machines/goal/goal.refusals"
import { goalStatusOf, isLiveGoalStatus } from "../../machines/goal/goal.status"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { LifecycleHost } from "../lifecycle/lifecycle.host"
import { goalContextProblem, upgradeGoalRecord } from "./goal.context"
import { type GoalImplementationDeps, createGoalImplementations } from "./goal.implementations"

export type GoalSnapshot = SnapshotFrom<GoalMachine>

/** The key a session's one live goal holds in the database, whichever process wrote it. */
export function liveGoalKey(sessionId: string | null, live: boolean): string | null {
  return live && sessionId !== null ? `goal:session:${sessionId}` : null
}

/** The birth fact of the session's live goal (`liveFor`'s answer): its path and status, or null for none. */
export function liveGoalFact(live: GoalSnapshot | undefined): GoalBirthFacts["liveGoal"] {
  if (live === undefined) return null
  const status = goalStatusOf(live.value)
  // The `live` tag is active's and paused's alone: a snapshot in any other status is no live goal.
  return isLiveGoalStatus(status) ? { path: live.context.goalPath, status } : null
}

/** The goal lifecycle on the one host: its machine, its document writes and prompts, its refusals, its records. */
export function defineGoalLifecycle(host: LifecycleHost, deps: GoalImplementationDeps): Lifecycle<GoalMachine> {
  return host.define({
    machine: goalMachine,
    implementations: createGoalImplementations(deps),
    explain: explainGoalRefusal,
    // The birth gate: a goal the machine refused at birth ends in `refused` and is never created.
    birthRefusal: (snapshot) => (snapshot.matches("refused") ? explainGoalBirthRefusal(snapshot) : null),
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
