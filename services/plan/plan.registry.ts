import type { SnapshotFrom } from "xstate"
import type { PlanMachine } from "../../machines/plan.machine"
import type { Lifecycle } from "../lifecycle/lifecycle"

export type PlanSnapshot = SnapshotFrom<PlanMachine>

// The plan actors of one workspace plus an index from session to its live plan, so the write-ban gate on every
// tool call is a map lookup and one `can()` — never a folder scan.

export class PlanRegistry {
  private readonly liveBySession = new Map<string, string>()

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
    for (const [, snapshot] of this.lifecycle.instances()) if (snapshot.hasTag("live")) out.push(snapshot)
    return out
  }

  stop(): void {
    this.lifecycle.stopAll()
    this.liveBySession.clear()
  }
}
