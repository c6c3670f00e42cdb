import type { SnapshotFrom } from "xstate"
import { type PlanMachine, planMachine } from "../../machines/plan.machine"
import { explainPlanRefusal } from "../../machines/plan.refusals"
import { ActorHost } from "../lifecycle/actor.host"
import { planContextProblem } from "./plan.context"
import type { Clock, LifecycleRepository } from "../lifecycle/lifecycle.ports"

export type PlanSnapshot = SnapshotFrom<PlanMachine>

// The plan actors of one workspace plus an index from session to its live plan, so the write-ban gate on every
// tool call is a map lookup and one `can()` — never a folder scan.

export class PlanRegistry {
  readonly host: ActorHost<PlanMachine>
  private readonly liveBySession = new Map<string, string>()

  constructor(repository: LifecycleRepository, clock: Clock) {
    this.host = new ActorHost({
      machine: planMachine,
      repository,
      clock,
      explain: explainPlanRefusal,
      metaOf: (snapshot) => ({ sessionId: snapshot.context.sessionId, document: snapshot.context.planPath }),
      contextProblem: planContextProblem,
    })
  }

  /** The live (draft or approved) plan bound to a session. */
  liveFor(sessionId: string): string | undefined {
    return this.liveBySession.get(sessionId)
  }

  snapshot(planPath: string): PlanSnapshot | undefined {
    return this.host.snapshot(planPath)
  }

  /** Keeps the session index in step with a snapshot that just changed. */
  track(snapshot: PlanSnapshot): void {
    const { planPath, sessionId } = snapshot.context
    for (const [session, path] of this.liveBySession) {
      if (path === planPath && session !== sessionId) this.liveBySession.delete(session)
    }
    if (sessionId === null) return
    if (snapshot.hasTag("live")) this.liveBySession.set(sessionId, planPath)
    else if (this.liveBySession.get(sessionId) === planPath) this.liveBySession.delete(sessionId)
  }

  /** Live plans with their sessions, for listings and tests. */
  live(): PlanSnapshot[] {
    const out: PlanSnapshot[] = []
    for (const [, actor] of this.host.instances()) {
      const snapshot = actor.getSnapshot()
      if (snapshot.hasTag("live")) out.push(snapshot)
    }
    return out
  }

  stop(): void {
    this.host.stopAll()
    this.liveBySession.clear()
  }
}
