import type { SessionIdleQuery } from "./job.ports"

// Whether a session is idle, the one thing a wake waits for. The host's status events say it as it happens; a session
// this host has heard nothing about yet (the owner of a job restored from a previous run) is asked of the host once.

export class SessionActivity {
  private readonly known = new Map<string, "idle" | "busy">()

  constructor(private readonly ask?: SessionIdleQuery) {}

  set(sessionId: string, status: "idle" | "busy"): void {
    this.known.set(sessionId, status)
  }

  forget(sessionId: string): void {
    this.known.delete(sessionId)
  }

  async isIdle(sessionId: string): Promise<boolean> {
    const known = this.known.get(sessionId)
    if (known !== undefined) return known === "idle"
    const idle = this.ask === undefined ? false : await this.ask(sessionId).catch(() => false)
    // An event that arrived while the host was asked is newer than the answer.
    if (!this.known.has(sessionId)) this.known.set(sessionId, idle ? "idle" : "busy")
    return this.known.get(sessionId) === "idle"
  }
}
