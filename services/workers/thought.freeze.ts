import type { ThoughtLevelParams } from "./thought.level"

// A session's depth is decided at its first request and kept for the session's life: editing forge.json mid-session
// never rewrites a running session, while new sessions read the file fresh. In memory only (a restart re-decides),
// and bounded: past the capacity the least recently used session is forgotten and would simply decide again.

export const THOUGHT_FREEZE_CAPACITY = 1000

export interface FrozenThought {
  params: ThoughtLevelParams
  /** True on the request that decided: the one moment to log the decision's finding. */
  first: boolean
}

export class ThoughtLevelFreeze {
  private readonly sessions = new Map<string, ThoughtLevelParams>()
  private readonly capacity: number

  constructor(capacity: number = THOUGHT_FREEZE_CAPACITY) {
    this.capacity = Math.max(1, Math.floor(capacity))
  }

  /** The session's frozen params; `decide` runs only when the session has none yet. */
  paramsFor(sessionId: string, decide: () => ThoughtLevelParams): FrozenThought {
    const frozen = this.sessions.get(sessionId)
    if (frozen !== undefined) {
      // Re-inserting keeps the Map's order least-recently-used first.
      this.sessions.delete(sessionId)
      this.sessions.set(sessionId, frozen)
      return { params: structuredClone(frozen), first: false }
    }
    const decided = structuredClone(decide())
    this.sessions.set(sessionId, decided)
    while (this.sessions.size > this.capacity) {
      const oldest = this.sessions.keys().next()
      if (oldest.done === true) break
      this.sessions.delete(oldest.value)
    }
    // A copy out, so a caller (or opencode) mutating the options cannot change the frozen decision.
    return { params: structuredClone(decided), first: true }
  }

  /** A deleted session's entry goes with it. */
  forget(sessionId: string): void {
    this.sessions.delete(sessionId)
  }

  has(sessionId: string): boolean {
    return this.sessions.has(sessionId)
  }

  get size(): number {
    return this.sessions.size
  }
}
