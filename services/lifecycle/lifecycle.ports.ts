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
  /**
   * What only one live instance of the workspace may hold at a time (e.g. "plan:session:<id>", a session's one live
   * plan); null or absent for nothing. The database refuses a second holder, whichever process writes it.
   */
  exclusiveKey?: string | null
  /** How many times the row was written (set by the repository when it reads a record back; ignored on write). */
  revision?: number
}

/** One step of one instance, decided on the latest committed record (see `LifecycleRepository.step`). */
export interface StepWrite {
  snapshot: SnapshotRecord
  transition: TransitionRecord
}

/** The instance holding an exclusive key, read inside the step's transaction. */
export type KeyHolder = (key: string) => Promise<{ machineId: string; instanceId: string } | undefined>

/** Decides one step on the latest committed record (undefined: none), with the key holders as they are now. */
export type StepDecision = (current: SnapshotRecord | undefined, holderOf: KeyHolder) => Promise<StepWrite | undefined>

/** Rows written since a point in the workspace's order of writes. */
export interface ChangedRecords {
  records: SnapshotRecord[]
  /** The newest point seen: ask from here next time. */
  seq: number
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
  /**
   * Decides and writes one step of one instance in a single write transaction (SQLite `BEGIN IMMEDIATE`): `decide`
   * gets the latest committed record (undefined when there is none), runs whatever must happen with it (a document
   * write), and returns the record to write, or undefined to write nothing. Every process on the workspace steps
   * through here, so a step is never decided on a stale record and never lands over a newer one. `decide` must not
   * use the repository (the connection is held for it). Resolves to the record as written, with its new revision.
   * An exclusive key another live instance holds is refused with `ExclusiveKeyTaken`.
   */
  step(machineId: string, instanceId: string, decide: StepDecision): Promise<SnapshotRecord | undefined>
  /** Records written (by any process) after `seq` in the workspace's order of writes, one machine's or all. */
  changedSince(seq: number, machineIds?: readonly string[]): Promise<ChangedRecords>
  /**
   * SQLite's `PRAGMA data_version`: changes when another connection (another process) commits, so a process learns
   * cheaply that it must look again. Stays the same for this connection's own writes.
   */
  dataVersion(): Promise<number>
  /**
   * A cheap, synchronous stamp that changes whenever any connection commits (a stat of the database's log), so a
   * process may skip even `dataVersion` while it stays the same. Undefined where there is none (in memory).
   */
  changeStamp?(): string | undefined
  /** Writes a snapshot without a transition (first start of an instance, reconciliation bookkeeping). */
  saveSnapshot(snapshot: SnapshotRecord): Promise<void>
  /**
   * Every snapshot of a machine (or of all machines), terminal ones included unless asked otherwise. A row that
   * cannot be decoded is left out and reported to `query.onDamaged`.
   */
  loadSnapshots(query?: SnapshotQuery): Promise<SnapshotRecord[]>
  /** The instance ids of every record of one machine, terminal and undecodable ones included: nothing is decoded. */
  instanceIds(machineId: string): Promise<string[]>
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
