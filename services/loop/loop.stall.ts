// The loop's stall watch: when each working pass's session last showed a sign of life (a part streamed, a status
// change, a tool call), so a turn that works on without one past the stall timeout is reported to its loop. In memory:
// after a restart a session's silence is counted from when the watch first sees it.

export class LoopStallWatch {
  private readonly lastSeen = new Map<string, number>()

  constructor(readonly stallMs: number) {}

  /** A sign of life of a session at `at` (epoch ms). */
  note(session: string, at: number): void {
    this.lastSeen.set(session, at)
  }

  /** The sessions among `working` silent past the timeout at `now`, with how long; the others are forgotten. */
  silent(working: readonly string[], now: number): { session: string; silentMs: number }[] {
    const watched = new Set(working)
    for (const session of this.lastSeen.keys()) if (!watched.has(session)) this.lastSeen.delete(session)
    const found: { session: string; silentMs: number }[] = []
    for (const session of watched) {
      const seen = this.lastSeen.get(session)
      if (seen === undefined) this.lastSeen.set(session, now)
      else if (now - seen >= this.stallMs) found.push({ session, silentMs: now - seen })
    }
    return found
  }
}
