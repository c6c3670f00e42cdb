// When the background restore of what an earlier run left begins. It is CPU work on opencode's one thread, so it waits
// for opencode's own start and first turn: it starts shortly after the first model request has gone out (the model's
// latency hides it), or a while after start-up in a host that sends none (a `serve` no one talks to yet), whichever
// comes first. A call that needs a restored lifecycle before then opens the runtime itself.

export interface RestoreDelay {
  /** After the config hook: the latest the restore starts. */
  afterStartMs: number
  /** After the first chat.params (the first model request is about to be sent). */
  afterFirstRequestMs: number
}

export class RestoreSchedule {
  private timer: ReturnType<typeof setTimeout> | undefined
  private pending = false

  /** `delay` undefined: the restore starts at once, when start-up asks for it. */
  constructor(
    private readonly restore: () => void,
    private readonly delay: RestoreDelay | undefined,
  ) {}

  /** The config hook ran: the restore is due. */
  started(): void {
    if (this.pending) return
    if (this.delay === undefined) {
      this.restore()
      return
    }
    this.pending = true
    this.arm(this.delay.afterStartMs)
  }

  /** A model request is about to be sent: a due restore runs once it is on its way. */
  requested(): void {
    if (!this.pending || this.delay === undefined) return
    this.arm(this.delay.afterFirstRequestMs)
  }

  cancel(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    this.pending = false
  }

  private arm(ms: number): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.cancel()
      this.restore()
    }, ms)
    this.timer.unref()
  }
}
