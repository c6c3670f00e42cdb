import type { AnyMachineSnapshot, AnyStateMachine, SnapshotFrom } from "xstate"
import { snapshotStateText } from "../../machines/state.text"
import type { LifecycleDefinition, LifecycleKernel } from "./lifecycle.definition"
import type { StepWrite } from "./lifecycle.ports"
import { snapshotRecordOf } from "./lifecycle.record"
import { resolveRecord } from "./lifecycle.restore"

// What one lifecycle writes: each step as its snapshot row and transition row (committed now, queued, or handed to a
// shared step's transaction), and the retention of finished instances' records.

export class LifecycleRecorder<TMachine extends AnyStateMachine> {
  /** Commits queued and not landed yet (`send`/`start` do not wait for theirs; `idle` does). */
  private readonly commits = new Set<Promise<void>>()
  private finishedSincePrune = 0

  constructor(
    private readonly definition: LifecycleDefinition<TMachine>,
    private readonly kernel: LifecycleKernel,
  ) {}

  /** The finished instances, newest first, as their records say: resolved, never run; a record that no longer fits is left out. */
  async finishedRecords(): Promise<{ snapshot: SnapshotFrom<TMachine>; updatedAt: number }[]> {
    const records = await this.kernel.finished(this.definition.machine.id)
    return records
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .flatMap((record) => {
        const resolved = resolveRecord(this.definition, record)
        return "problem" in resolved ? [] : [{ snapshot: resolved.snapshot, updatedAt: record.updatedAt }]
      })
  }

  /** The rows one step writes, stamped now. */
  write(instanceId: string, typed: SnapshotFrom<TMachine>, from: string, event: string): StepWrite {
    const snapshot = snapshotRecordOf(this.definition, instanceId, typed, this.kernel.clock.now())
    const { machineId, sessionId, state: to, updatedAt: at } = snapshot
    return { snapshot, transition: { machineId, instanceId, sessionId, from, event, to, at } }
  }

  /** Commits one step and waits for it (nothing for a lifecycle that is not persisted). */
  async record(instanceId: string, typed: SnapshotFrom<TMachine>, from: string, event: string): Promise<void> {
    await this.commit(instanceId, typed, from, event)
  }

  /** Queues one step's commit; a failure is logged, never thrown into the caller. */
  recordLater(instanceId: string, typed: SnapshotFrom<TMachine>, from: string, event: string): void {
    const to = snapshotStateText(typed as AnyMachineSnapshot)
    this.commit(instanceId, typed, from, event)?.catch((error: unknown) =>
      this.kernel.log.warn(`${this.definition.machine.id} ${instanceId}: could not record ${from} --${event}--> ${to}: ${String(error)}`),
    )
  }

  /** Counts an instance that finished; every `retention.every` finished instances, the old records are pruned. */
  finished(): void {
    const retention = this.definition.retention
    if (retention !== undefined && ++this.finishedSincePrune >= retention.every) void this.prune()
  }

  /** Retention: the terminal records beyond the newest `retention.keep` go. */
  async prune(): Promise<void> {
    const retention = this.definition.retention
    if (retention === undefined) return
    this.finishedSincePrune = 0
    const id = this.definition.machine.id
    try {
      const removed = await this.kernel.pruneTerminal(id, retention.keep)
      if (removed > 0) this.kernel.log.info(`pruned the records of ${removed} finished ${id}(s); the newest ${retention.keep} are kept`)
    } catch (error) {
      this.kernel.log.warn(`could not prune finished ${id} records: ${String(error)}`)
    }
  }

  /** Waits until every commit queued so far has landed (or failed). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.commits])
  }

  private commit(instanceId: string, typed: SnapshotFrom<TMachine>, from: string, event: string): Promise<void> | undefined {
    if (this.definition.persist === false) return undefined
    const { snapshot, transition } = this.write(instanceId, typed, from, event)
    const done = this.kernel.commit(snapshot, transition)
    this.commits.add(done)
    void done.then(
      () => this.commits.delete(done),
      () => this.commits.delete(done),
    )
    if (snapshot.terminal) this.finished()
    return done
  }
}
