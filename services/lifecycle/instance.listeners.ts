// Who hears of an instance's new snapshots: listeners of one instance, and observers of every instance.

type Listener<S> = (snapshot: S) => void
type Observer<S> = (instanceId: string, snapshot: S) => void

export class InstanceListeners<S> {
  private readonly listeners = new Map<string, Set<Listener<S>>>()
  private readonly observers = new Set<Observer<S>>()

  /** Calls `listener` with every new snapshot of the instance; returns the function that stops it. */
  subscribe(instanceId: string, listener: Listener<S>): () => void {
    const set = this.listeners.get(instanceId) ?? new Set()
    set.add(listener)
    this.listeners.set(instanceId, set)
    return () => set.delete(listener)
  }

  /** Calls `observer` with every new snapshot of every instance; returns the function that stops it. */
  observe(observer: Observer<S>): () => void {
    this.observers.add(observer)
    return () => this.observers.delete(observer)
  }

  /** Resolves with the first snapshot, `current` included, that satisfies `predicate`. */
  waitFor(instanceId: string, current: S, predicate: (snapshot: S) => boolean): Promise<S> {
    if (predicate(current)) return Promise.resolve(current)
    return new Promise((resolve) => {
      const stop = this.subscribe(instanceId, (snapshot) => {
        if (!predicate(snapshot)) return
        stop()
        resolve(snapshot)
      })
    })
  }

  notify(instanceId: string, snapshot: S): void {
    for (const listener of [...(this.listeners.get(instanceId) ?? [])]) listener(snapshot)
    for (const observer of [...this.observers]) observer(instanceId, snapshot)
  }

  /** The instance's listeners go (observers stay). */
  forget(instanceId: string): void {
    this.listeners.delete(instanceId)
  }

  /** Every instance's listeners go (observers stay). */
  clear(): void {
    this.listeners.clear()
  }
}
