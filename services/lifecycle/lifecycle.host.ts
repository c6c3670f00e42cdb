import type { AnyStateMachine } from "xstate"
import { Lifecycle } from "./lifecycle"
import type { LifecycleDefinition, LifecycleKernel } from "./lifecycle.definition"
import type { Clock, LifecycleRepository, Logger, SnapshotRecord, TransitionRecord } from "./lifecycle.ports"

// The one lifecycle host of a workspace: every lifecycle (plan, job, watchdog, and the ones to come) is defined on
// it, it alone creates actors, and it alone writes the `actors` and `transitions` tables — through one queue, so
// records land in the order things happened, whichever lifecycle they belong to.

export interface LifecycleHostOptions {
  /** The workspace database, opened on first use; undefined while there is none (nothing is recorded then). */
  repository: () => Promise<LifecycleRepository | undefined>
  clock: Clock
  log: Logger
}

export class LifecycleHost implements LifecycleKernel {
  private readonly lifecycles = new Map<string, Lifecycle<AnyStateMachine>>()
  private writes: Promise<unknown> = Promise.resolve()

  constructor(private readonly options: LifecycleHostOptions) {}

  get clock() {
    return this.options.clock
  }

  get log() {
    return this.options.log
  }

  /** Adds a lifecycle to the host: one per machine id. */
  define<TMachine extends AnyStateMachine>(definition: LifecycleDefinition<TMachine>): Lifecycle<TMachine> {
    const id = definition.machine.id
    if (this.lifecycles.has(id)) throw new Error(`lifecycle ${id} is already defined on this host`)
    const lifecycle = new Lifecycle(definition, this)
    this.lifecycles.set(id, lifecycle as unknown as Lifecycle<AnyStateMachine>)
    return lifecycle
  }

  commit(snapshot: SnapshotRecord, transition: TransitionRecord): Promise<void> {
    return this.enqueue(async (repository) => repository.commit(snapshot, transition), undefined)
  }

  pruneTerminal(machineId: string, keep: number): Promise<number> {
    return this.enqueue((repository) => repository.pruneTerminal(machineId, keep), 0)
  }

  /** Waits until every lifecycle's queued work and every queued write has finished. */
  async idle(): Promise<void> {
    await Promise.all([...this.lifecycles.values()].map((lifecycle) => lifecycle.idle()))
    await this.writes.catch(() => undefined)
  }

  /** Stops every actor of every lifecycle (their records stay). */
  stopAll(): void {
    for (const lifecycle of this.lifecycles.values()) lifecycle.stopAll()
  }

  /** Runs one write after every write queued before it; a failed write never blocks the ones after it. */
  private enqueue<T>(work: (repository: LifecycleRepository) => Promise<T>, skipped: T): Promise<T> {
    const run = this.writes.then(
      () => this.write(work, skipped),
      () => this.write(work, skipped),
    )
    this.writes = run.catch(() => undefined)
    return run
  }

  private async write<T>(work: (repository: LifecycleRepository) => Promise<T>, skipped: T): Promise<T> {
    const repository = await this.options.repository()
    return repository === undefined ? skipped : work(repository)
  }
}
