// Ports the lifecycle runtime needs from the world. Adapters implement them (SQLite, files, opencode);
// another harness can implement them with anything that keeps the same promises.

/** Wall-clock time enters the domain only through this port, so machines and services stay deterministic. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
}

export interface Logger {
  info(message: string, extra?: Record<string, unknown>): void
  warn(message: string, extra?: Record<string, unknown>): void
  error(message: string, extra?: Record<string, unknown>): void
}

export interface DialogRequest {
  /** The permission key the dialog is asked on (e.g. "plan_approve"); the host forces it to "ask". */
  permission: string
  /** What the dialog decides about: the workspace-relative document (e.g. the plan's path). */
  subject: string
  /** What the user is asked to confirm, in one or two lines. */
  summary: string
}

/** Asks the user; resolves true only for an explicit allow. */
export type Confirm = (request: DialogRequest) => Promise<boolean>

/** One persisted actor: the latest snapshot of one lifecycle instance. */
export interface SnapshotRecord {
  /** Machine id, e.g. "plan". */
  machineId: string
  /** Version of the machine definition the snapshot was taken from. */
  machineVersion: string
  /** Instance id, unique per machine (for plans: the workspace-relative document path). */
  instanceId: string
  /** Session the instance is bound to, when it is session-scoped. */
  sessionId: string | null
  /** Serialized state value (e.g. "draft" or "approved.working"). */
  state: string
  /** Whether the state is final: terminal actors are kept for history but never restored. */
  terminal: boolean
  /** `actor.getPersistedSnapshot()` as plain JSON. */
  snapshot: unknown
  /** Workspace-relative path of the human-facing document, when the lifecycle has one. */
  document: string | null
  /** Milliseconds since the epoch. */
  updatedAt: number
}

/** One row of the transition log that every lifecycle shares. */
export interface TransitionRecord {
  machineId: string
  instanceId: string
  sessionId: string | null
  from: string
  event: string
  to: string
  /** Milliseconds since the epoch. */
  at: number
}

/** A stored snapshot row that could not be decoded: it is left out of a load, never thrown for the whole batch. */
export interface DamagedSnapshot {
  machineId: string
  instanceId: string
  sessionId: string | null
  document: string | null
  /** What is wrong with it, naming the row. */
  problem: string
}

export interface SnapshotQuery {
  machineId?: string
  includeTerminal?: boolean
  /** Told about each row left out because it cannot be decoded (one damaged row costs only its own instance). */
  onDamaged?: (damage: DamagedSnapshot) => void
}

export interface TransitionFilter {
  machineId?: string
  instanceId?: string
  sessionId?: string
}

/** Durable store of actor snapshots and the shared transition log. */
export interface LifecycleRepository {
  /** Writes the snapshot and appends the transition in one transaction: both land or neither does. */
  commit(snapshot: SnapshotRecord, transition: TransitionRecord): Promise<void>
  /** Writes a snapshot without a transition (first start of an instance, reconciliation bookkeeping). */
  saveSnapshot(snapshot: SnapshotRecord): Promise<void>
  /**
   * Every snapshot of a machine (or of all machines), terminal ones included unless asked otherwise. A row that
   * cannot be decoded is left out and reported to `query.onDamaged`.
   */
  loadSnapshots(query?: SnapshotQuery): Promise<SnapshotRecord[]>
  /** One snapshot, or undefined. */
  getSnapshot(machineId: string, instanceId: string): Promise<SnapshotRecord | undefined>
  /** Transition log rows in insertion order. */
  listTransitions(filter?: TransitionFilter): Promise<TransitionRecord[]>
  /**
   * Retention: removes the terminal instances of one machine beyond the `keep` most recently updated, with their
   * transition rows, in one transaction. Live instances are never touched. Resolves to the number removed.
   */
  pruneTerminal(machineId: string, keep: number): Promise<number>
  close(): Promise<void>
}
