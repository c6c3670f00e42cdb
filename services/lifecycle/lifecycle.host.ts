import type { AnyStateMachine } from "xstate"
import { Lifecycle } from "./lifecycle"
import type { LifecycleInspection } from "./lifecycle.inspection"
import type { LifecycleDefinition, LifecycleKernel } from "./lifecycle.definition"
import type { Clock, LifecycleRepository, Logger, SnapshotRecord, StepDecision, TransitionRecord } from "./lifecycle.ports"

// The one lifecycle host of a workspace: every lifecycle (plan, job, watchdog, and the ones to come) is defined on
// it, it alone creates actors, and it alone writes the `actors` and `transitions` tables — through one queue, so
// records land in the order things happened, whichever lifecycle they belong to.

export interface LifecycleHostOptions {
  /** The workspace database, opened on first use; undefined while there is none (nothing is recorded then). */
  repository: () => Promise<LifecycleRepository | undefined>
  clock: Clock
  log: Logger
  /** Who watches every instance's snapshots live (the `inspect` option); none by default. */
  inspection?: LifecycleInspection
}

/**
 * How long an unchanged stamp of the database files is trusted before `data_version` is asked anyway: two commits in
 * one tick of the file system's clock (a log restarted at the same size) leave the stamp as it was.
 */
const RECHECK_MS = 250

export class LifecycleHost implements LifecycleKernel {
  private readonly lifecycles = new Map<string, Lifecycle<AnyStateMachine>>()
  private writes: Promise<unknown> = Promise.resolve()
  /**
   * What this process has seen of the database: its data_version, the newest write it read, and the files' change
   * stamp and the time when it last asked.
   */
  private seen: { dataVersion: number; seq: number; stamp: string | undefined; at: number } | undefined
  private refreshing: Promise<void> | undefined

  constructor(private readonly options: LifecycleHostOptions) {}

  get clock() {
    return this.options.clock
  }

  get log() {
    return this.options.log
  }

  get inspection(): LifecycleInspection | undefined {
    return this.options.inspection
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

  step(machineId: string, instanceId: string, decide: StepDecision): Promise<SnapshotRecord | undefined> {
    return this.enqueue(
      (repository) => repository.step(machineId, instanceId, decide),
      // No database: the step is decided on this process's own state and nothing is written.
      undefined,
      async () => (await decide(undefined, async () => undefined))?.snapshot,
    )
  }

  /**
   * Brings the shared lifecycles up to what other processes committed. One stat call when the database files have
   * not changed (and one cheap query, PRAGMA data_version, when they have or a while has passed); only when another
   * connection committed, the rows written since this process last looked, handed to their lifecycles.
   */
  refresh(): Promise<void> {
    this.refreshing ??= this.catchUp().finally(() => (this.refreshing = undefined))
    return this.refreshing
  }

  private async catchUp(): Promise<void> {
    const shared = [...this.lifecycles.values()].filter((lifecycle) => lifecycle.shared)
    if (shared.length === 0) return
    const repository = await this.options.repository()
    if (repository === undefined) return
    // Taken before the query: a commit that lands after it changes the stamp for the next call.
    const stamp = repository.changeStamp?.()
    const now = this.options.clock.now()
    const seen = this.seen
    // Unchanged files: nobody committed — but a file time is coarse, so the database itself is asked now and then.
    if (seen !== undefined && stamp !== undefined && stamp === seen.stamp && now - seen.at < RECHECK_MS) return
    const dataVersion = await repository.dataVersion()
    if (seen?.dataVersion === dataVersion) {
      this.seen = { ...seen, stamp, at: now }
      return
    }
    const changed = await repository.changedSince(
      seen?.seq ?? 0,
      shared.map((lifecycle) => lifecycle.machine.id),
    )
    this.seen = { dataVersion, seq: changed.seq, stamp, at: now }
    for (const record of changed.records) this.lifecycles.get(record.machineId)?.absorb(record)
  }

  pruneTerminal(machineId: string, keep: number): Promise<number> {
    return this.enqueue((repository) => repository.pruneTerminal(machineId, keep), 0)
  }

  /** After every write queued before it, so an instance this process just finished is among them. */
  finished(machineId: string): Promise<SnapshotRecord[]> {
    return this.enqueue(async (repository) => (await repository.loadSnapshots({ machineId, includeTerminal: true })).filter((record) => record.terminal), [])
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
  private enqueue<T>(work: (repository: LifecycleRepository) => Promise<T>, skipped: T, withoutDatabase?: () => Promise<T>): Promise<T> {
    const write = async () => {
      const repository = await this.options.repository()
      if (repository !== undefined) return work(repository)
      return withoutDatabase === undefined ? skipped : withoutDatabase()
    }
    const run = this.writes.then(write, write)
    this.writes = run.catch(() => undefined)
    return run
  }
}
