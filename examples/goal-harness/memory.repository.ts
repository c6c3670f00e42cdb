import type { ChangedRecords, LifecycleRepository, SnapshotQuery, SnapshotRecord, StepDecision, TransitionFilter, TransitionRecord } from "forgecharts/services"

// A lifecycle repository in memory: every snapshot and transition the host commits, kept in maps and lists for as long
// as the process runs. One process, so a step is decided on the record this map holds.

export class MemoryLifecycleRepository implements LifecycleRepository {
  private readonly snapshots = new Map<string, SnapshotRecord & { seq: number }>()
  private readonly transitions: TransitionRecord[] = []
  private seq = 0

  async commit(snapshot: SnapshotRecord, transition: TransitionRecord): Promise<void> {
    this.put(snapshot)
    this.transitions.push(transition)
  }

  async step(machineId: string, instanceId: string, decide: StepDecision): Promise<SnapshotRecord | undefined> {
    const current = this.snapshots.get(this.key(machineId, instanceId))
    const holderOf = async (key: string) => {
      for (const record of this.snapshots.values()) if (record.exclusiveKey === key) return { machineId: record.machineId, instanceId: record.instanceId }
      return undefined
    }
    const write = await decide(current, holderOf)
    if (write === undefined) return undefined
    const revision = (current?.revision ?? 0) + 1
    this.put({ ...write.snapshot, revision })
    this.transitions.push(write.transition)
    return { ...write.snapshot, revision }
  }

  async changedSince(seq: number, machineIds?: readonly string[]): Promise<ChangedRecords> {
    const records = [...this.snapshots.values()].filter((r) => r.seq > seq && (machineIds === undefined || machineIds.includes(r.machineId)))
    return { records, seq: this.seq }
  }

  async dataVersion(): Promise<number> {
    // Only this process writes: nothing another connection committed is ever to be looked for.
    return 0
  }

  async saveSnapshot(snapshot: SnapshotRecord): Promise<void> {
    this.put(snapshot)
  }

  async loadSnapshots(query: SnapshotQuery = {}): Promise<SnapshotRecord[]> {
    return [...this.snapshots.values()].filter(
      (r) => (query.machineId === undefined || r.machineId === query.machineId) && (query.includeTerminal !== false || !r.terminal),
    )
  }

  async instanceIds(machineId: string): Promise<string[]> {
    return [...this.snapshots.values()].filter((r) => r.machineId === machineId).map((r) => r.instanceId)
  }

  async getSnapshot(machineId: string, instanceId: string): Promise<SnapshotRecord | undefined> {
    return this.snapshots.get(this.key(machineId, instanceId))
  }

  async listTransitions(filter: TransitionFilter = {}): Promise<TransitionRecord[]> {
    return this.transitions.filter(
      (t) =>
        (filter.machineId === undefined || t.machineId === filter.machineId) &&
        (filter.instanceId === undefined || t.instanceId === filter.instanceId) &&
        (filter.sessionId === undefined || t.sessionId === filter.sessionId),
    )
  }

  async pruneTerminal(): Promise<number> {
    return 0
  }

  async close(): Promise<void> {}

  private put(snapshot: SnapshotRecord): void {
    this.seq += 1
    this.snapshots.set(this.key(snapshot.machineId, snapshot.instanceId), { ...snapshot, seq: this.seq })
  }

  private key(machineId: string, instanceId: string): string {
    return `${machineId}\u0000${instanceId}`
  }
}
