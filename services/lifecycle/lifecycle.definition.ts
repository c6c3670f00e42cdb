import type { AnyStateMachine, EventFromLogic, SnapshotFrom, StateValue } from "xstate"
import type { Clock, Logger, SnapshotRecord, StepDecision, TransitionRecord } from "./lifecycle.ports"
import type { LifecycleInspection } from "./lifecycle.inspection"

// What a lifecycle tells the one host about itself: its machine, the effects it supplies for the machine's
// placeholders, how its gates explain a refusal, and how its records are kept and restored.

export interface InstanceMeta {
  sessionId: string | null
  document: string | null
  /** What only one live instance of the workspace may hold (a session's one live plan); null or absent for nothing. */
  exclusiveKey?: string | null
}

/** What an effect implementation is called with: the state of things when the machine asked for the effect. */
export interface EffectArgs<TMachine extends AnyStateMachine> {
  context: SnapshotFrom<TMachine>["context"]
  event: EventFromLogic<TMachine> | { type: string; input?: unknown }
}

/**
 * One side effect a machine declares as a placeholder action. Synchronous effects report back with events; an
 * effect that returns a promise is awaited by `dispatch` (before anything is committed) and logged by `send`.
 */
export type Effect<TMachine extends AnyStateMachine, TParams = never> = (args: EffectArgs<TMachine>, params: TParams) => void | Promise<void>

/** The implementations of a machine's placeholder actions, by action name (what `create<Name>Implementations` returns). */
export interface Implementations<TMachine extends AnyStateMachine> {
  /** Params differ per action (`never` accepts each one's own); each factory types its own with `satisfies`. */
  actions: Record<string, Effect<TMachine, never>>
}

/** A persisted snapshot as it was read back: a state value and a context, not yet trusted. */
export interface PersistedShape {
  value: StateValue
  context: unknown
  /**
   * The persisted snapshots of the machines it invokes, by invoke id (`getPersistedSnapshot`'s `children`: each one's
   * `snapshot` and `src`); absent or empty when none runs.
   */
  children?: Record<string, PersistedChild>
}

/** One invoked machine as its parent's persisted snapshot holds it. */
export interface PersistedChild {
  snapshot: { value?: StateValue; context?: unknown; status?: string } & Record<string, unknown>
  src: string
  [key: string]: unknown
}

export interface LifecycleDefinition<TMachine extends AnyStateMachine> {
  machine: TMachine
  /** The harness's effects for the machine's placeholders; a placeholder without one throws "not provided". */
  implementations: Implementations<TMachine>
  /** Says why `can(event)` was false, in words that name the gate and the way past it. */
  explain: (snapshot: SnapshotFrom<TMachine>, event: EventFromLogic<TMachine>) => string
  /**
   * A birth gate: says why the machine refused a new instance from its first snapshot (a crew whose registration
   * ended in `refused`), or null when the birth stands. Without it every birth stands (a watch may be born finished).
   */
  birthRefusal?: (snapshot: SnapshotFrom<TMachine>) => string | null
  /** Reads the session and document back out of a snapshot, so bindings made by events are persisted. */
  metaOf: (snapshot: SnapshotFrom<TMachine>) => InstanceMeta
  /** Says what is wrong with a persisted context (null: it fits), so a damaged row is refused before an actor runs on it. */
  contextProblem?: (context: unknown) => string | null
  /** Says what is wrong with the persisted context of an invoked machine (null: it fits), by its invoke id. */
  childContextProblem?: (childId: string, context: unknown) => string | null
  /**
   * Brings a snapshot written by another version of the machine up to this one, or throws why it cannot. Without
   * it, a record of another version does not fit.
   */
  upgrade?: (persisted: PersistedShape, fromVersion: string) => PersistedShape
  /** False: instances live in memory only (nothing outlives the process). Default true. */
  persist?: boolean
  /**
   * True: every opencode process on the workspace may step the instances (plans). Each awaited step is then decided
   * on the latest committed record in one write transaction, and `refresh` brings in what other processes wrote.
   * False (default): one process owns each instance (jobs, watches), and its steps are committed as they come.
   */
  shared?: boolean
  /** Events that are not recorded when they leave the state as it was (frequent, and their data is kept elsewhere). */
  quietEvents?: readonly string[]
  /** Terminal records kept (newest first) and how often (in finished instances) the rest are pruned. */
  retention?: { keep: number; every: number }
}

/** What a lifecycle needs of its host: the clock, the log, and the one write queue. */
export interface LifecycleKernel {
  readonly clock: Clock
  readonly log: Logger
  /** Who watches every instance's snapshots live, if anyone. */
  readonly inspection?: LifecycleInspection
  /** Commits a snapshot and its transition row together, after every write queued before it. */
  commit(snapshot: SnapshotRecord, transition: TransitionRecord): Promise<void>
  /**
   * One step decided on the latest committed record, in one write transaction (`LifecycleRepository.step`), after every
   * write queued before it. Without a database `decide` gets undefined and its record is handed back unwritten.
   */
  step(machineId: string, instanceId: string, decide: StepDecision): Promise<SnapshotRecord | undefined>
  /** Brings in the records other processes wrote since this one last looked (cheap when nothing changed). */
  refresh(): Promise<void>
  /** Retention: removes the terminal records of one machine beyond the newest `keep`; resolves to how many went. */
  pruneTerminal(machineId: string, keep: number): Promise<number>
  /** The terminal records of one machine (retention bounds them), from any process; none without a database. */
  finished(machineId: string): Promise<SnapshotRecord[]>
}
