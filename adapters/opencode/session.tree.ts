// Subagents run in child sessions. Lifecycle state binds the root session, so a draft plan's write-ban also binds
// every agent the session spawned. Parents are learnt from session events and, for sessions seen before a restart,
// asked of the host once and cached.

export type SessionLookup = (sessionId: string) => Promise<{ parentID?: string } | undefined>

const MAX_DEPTH = 10

export class SessionTree {
  private readonly parents = new Map<string, string | null>()

  constructor(private readonly lookup: SessionLookup) {}

  /** Records what a session.created / session.updated event says about a session. */
  learn(sessionId: string, parentId: string | undefined): void {
    this.parents.set(sessionId, parentId ?? null)
  }

  forget(sessionId: string): void {
    this.parents.delete(sessionId)
  }

  /** The root session of a session's tree; the session itself when it has no parent or the host cannot say. */
  async rootOf(sessionId: string): Promise<string> {
    let current = sessionId
    for (let depth = 0; depth < MAX_DEPTH; depth++) {
      const parent = await this.parentOf(current)
      if (parent === null) return current
      current = parent
    }
    return current
  }

  /** The cached root, without asking the host: for hot paths that must stay synchronous. */
  knownRootOf(sessionId: string): string | undefined {
    let current = sessionId
    for (let depth = 0; depth < MAX_DEPTH; depth++) {
      const parent = this.parents.get(current)
      if (parent === undefined) return undefined
      if (parent === null) return current
      current = parent
    }
    return current
  }

  private async parentOf(sessionId: string): Promise<string | null> {
    const known = this.parents.get(sessionId)
    if (known !== undefined) return known
    const info = await this.lookup(sessionId).catch(() => undefined)
    const parent = info?.parentID ?? null
    this.parents.set(sessionId, parent)
    return parent
  }
}
