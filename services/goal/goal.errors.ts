/** A goal tool or command called in a session with no live goal. */
export class NoGoalError extends Error {
  constructor(sessionId: string) {
    super(`no live goal in this session (${sessionId}). Write one with goal_write (or /goal <objective>); /goal lists the queue.`)
    this.name = "NoGoalError"
  }
}
