// When the background restore of what an earlier run left begins. It is CPU work on opencode's one thread (the
// services' code loaded, the database opened, every live lifecycle rebuilt), so it waits for a moment when no session
// runs a turn: shortly after the turns running have all ended, or a while after start-up at the latest, whatever the
// sessions do (work a dead driver left must not wait for a long turn). A call that needs a restored lifecycle before
// then opens the runtime itself.

export interface RestoreDelay {
  /** After the config hook: the latest the restore starts. */
  afterStartMs: number
  /** After the last running turn ended (every session idle again). */
  afterTurnsMs: number
}

export class RestoreSchedule {
  private timer: ReturnType<typeof setTimeout> | undefined
  private deadline: number | undefined
  private readonly busy = new Set<string>()

  /** `delay` undefined: the restore starts at once, when start-up asks for it. */
  constructor(
    private readonly restore: () => void,
    private readonly delay: RestoreDelay | undefined,
  ) {}

  /** The config hook ran: the restore is due. */
  started(): void {
    if (this.deadline !== undefined) return
    if (this.delay === undefined) {
      this.restore()
      return
    }
    this.deadline = Date.now() + this.delay.afterStartMs
    this.arm(this.delay.afterStartMs)
  }

  /** A session started a turn: a due restore waits for it (up to its deadline). */
  turnStarted(sessionID: string): void {
    this.busy.add(sessionID)
    if (this.deadline !== undefined) this.arm(this.deadline - Date.now())
  }

  /** A session went idle: once none runs a turn, a due restore starts soon. */
  turnEnded(sessionID: string): void {
    this.busy.delete(sessionID)
    if (this.deadline === undefined || this.delay === undefined || this.busy.size > 0) return
    this.arm(Math.min(this.delay.afterTurnsMs, this.deadline - Date.now()))
  }

  cancel(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    this.deadline = undefined
  }

  private arm(ms: number): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(
      () => {
        this.cancel()
        this.restore()
      },
      Math.max(0, ms),
    )
    this.timer.unref()
  }
}
