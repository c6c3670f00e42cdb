/** One queue of work per instance: each unit runs strictly after the previous one for it, whether that succeeded or failed. */
export class InstanceQueues {
  private readonly tails = new Map<string, Promise<unknown>>()

  run<T>(instanceId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(instanceId) ?? Promise.resolve()
    const run = previous.then(work, work)
    const tail = run.catch(() => undefined)
    this.tails.set(instanceId, tail)
    void tail.then(() => {
      if (this.tails.get(instanceId) === tail) this.tails.delete(instanceId)
    })
    return run
  }

  /** Waits until every unit queued so far has finished. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.tails.values()])
  }
}
