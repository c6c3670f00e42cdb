import type { SnapshotFrom } from "xstate"
import type { PlanMachine } from "../../machines/plan/plan.machine"
import type { Lifecycle } from "../lifecycle/lifecycle"

export type PlanSnapshot = SnapshotFrom<PlanMachine>

// The plan actors of one workspace plus an index from session to its live plan, so the write-ban gate on every
// tool call is a map lookup and one `can()` — never a folder scan.

export class PlanRegistry {
  private readonly liveBySession = new Map<string, string>()
  /** The other way round: the session each indexed plan is live for, so a change is found without a scan. */
  private readonly sessionByPlan = new Map<string, string>()

  /** `lifecycle`: the plan lifecycle on the workspace's one host (definePlanLifecycle). */
  constructor(readonly lifecycle: Lifecycle<PlanMachine>) {
    // Whoever moved a plan (this process or another one on the workspace), the session index follows.
    lifecycle.observe((_, snapshot) => this.track(snapshot))
  }

  /** The live (draft or approved) plan bound to a session. */
  liveFor(sessionId: string): string | undefined {
    return this.liveBySession.get(sessionId)
  }

  snapshot(planPath: string): PlanSnapshot | undefined {
    return this.lifecycle.snapshot(planPath)
  }

  /** Keeps the session index in step with a snapshot that just changed. */
  track(snapshot: PlanSnapshot): void {
    const { planPath, sessionId } = snapshot.context
    const live = sessionId !== null && snapshot.hasTag("live")
    const indexed = this.sessionByPlan.get(planPath)
    if (indexed !== undefined && (indexed !== sessionId || !live)) {
      this.sessionByPlan.delete(planPath)
      if (this.liveBySession.get(indexed) === planPath) this.liveBySession.delete(indexed)
    }
    if (!live) return
    const displaced = this.liveBySession.get(sessionId)
    if (displaced !== undefined && displaced !== planPath) this.sessionByPlan.delete(displaced)
    this.liveBySession.set(sessionId, planPath)
    this.sessionByPlan.set(planPath, sessionId)
  }

  /** Live plans with their sessions, for listings and tests. */
  live(): PlanSnapshot[] {
    const out: PlanSnapshot[] = []
    for (const [, snapshot] of this.lifecycle.instances()) if (snapshot.hasTag("live")) out.push(snapshot)
    return out
  }

  stop(): void {
    this.lifecycle.stopAll()
    this.liveBySession.clear()
    this.sessionByPlan.clear()
  }
}
