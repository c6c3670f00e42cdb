// The live inspector's view of one workspace, fed from its SQLite database through the lifecycle repository's own change
// feed (a cheap `PRAGMA data_version` while nothing changes, then the records written since) and the watchdog's ledger,
// handed to subscribers as deltas; an instance's transition log is read when a page opens it. Works whether opencode
// runs (any process writes the same database) or not (it shows what happened).
import { existsSync } from "node:fs"
import type { StateValue } from "xstate"
import { stateToString } from "../../machines/state.text"
import { databasePath } from "../storage/database.path"
import type { SnapshotRecord, TransitionRecord } from "../../services/lifecycle/lifecycle.ports"
import { type InspectedWatchdogEntry, InspectorReads } from "../storage/inspector.reads"
import { openLifecycleStore } from "../storage/lifecycle.store"
import type { LiveActor } from "./inspector.receiver"

/** One lifecycle instance as the page lists it; its context and document are fetched when it is opened. */
export interface FeedInstance {
  key: string
  machine: string
  instance: string
  session: string | null
  state: string
  /** The state value of the record's snapshot (what the diagram highlights); null when the record has none. */
  value: unknown
  final: boolean
  document: string | null
  updatedAt: number
  /** The record's revision (-1 for an actor known only live): it moves with every write. */
  revision: number
  /** Where it stands, in a line (a plan's tasks, a goal's turns…), or null. */
  detail: string | null
  /** Known only from the plugin's live stream (the `inspect` option), not from the database: an actor never stored. */
  live: boolean
}

export type FeedMessage =
  | {
      type: "reset"
      instances: FeedInstance[]
      watchdog: InspectedWatchdogEntry[]
      database: string | null
      problem: string | null
      liveSnapshots: number
    }
  | { type: "instances"; instances: FeedInstance[] }
  | { type: "removed"; keys: string[] }
  | { type: "watchdog"; entries: InspectedWatchdogEntry[] }
  | { type: "problem"; text: string | null }
  | { type: "live"; snapshots: number }

/** One instance's record as the inspector holds it: from the database, or made from a live actor's snapshot. */
export interface InspectedRow {
  machine: string
  instance: string
  session: string | null
  state: string
  final: boolean
  document: string | null
  updatedAt: number
  revision: number
  snapshot: unknown
}

export interface InspectorFeedOptions {
  workspace: string
  /** How often the database is asked whether anything changed. */
  pollMs?: number
  /** The line that says where an instance stands. */
  detail?: (machine: string, snapshot: unknown) => string | null
}

/** The newest watchdog entries kept in memory, and the newest transitions of one instance a page gets. */
const LOG_SHOWN = 500
const WATCHDOG_KEPT = 1_000
const PAGE = 2_000
/** Actors known only from the live stream, newest kept. */
const LIVE_KEPT = 2_000

export class InspectorFeed {
  private readonly rows = new Map<string, InspectedRow>()
  private readonly liveOnly = new Map<string, InspectedRow>()
  private watchdog: InspectedWatchdogEntry[] = []
  private readonly subscribers = new Set<(message: FeedMessage) => void>()
  private cursor = { seq: -1, watchdog: 0, dataVersion: Number.NaN }
  private opened: { store: Awaited<ReturnType<typeof openLifecycleStore>>; reads: InspectorReads } | undefined
  private timer: NodeJS.Timeout | undefined
  private polling: Promise<void> | undefined
  private readonly pollMs: number
  private problem: string | null = null
  /** Snapshots the plugin's live stream brought (the `inspect` option pointed here). */
  private liveSnapshots = 0

  constructor(private readonly options: InspectorFeedOptions) {
    this.pollMs = options.pollMs ?? 100
  }

  get database(): string {
    return databasePath(this.options.workspace)
  }

  /** Reads what the database holds now and starts following it; a workspace without one is followed until it has one. */
  async start(): Promise<void> {
    await this.poll()
    this.timer = setInterval(() => void this.poll(), this.pollMs)
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.polling
    await this.opened?.store.close()
    this.opened = undefined
  }

  /** Everything the page shows, as one message. */
  current(): Extract<FeedMessage, { type: "reset" }> {
    return {
      type: "reset",
      instances: [...[...this.rows.values()].map((row) => this.instanceOf(row)), ...[...this.liveOnly.values()].map((row) => this.instanceOf(row, true))],
      watchdog: this.watchdog,
      database: this.opened === undefined ? null : this.database,
      problem: this.problem,
      liveSnapshots: this.liveSnapshots,
    }
  }

  /** One instance's record as stored (its snapshot's context included), or undefined. */
  row(machine: string, instance: string): InspectedRow | undefined {
    const key = `${machine}/${instance}`
    return this.rows.get(key) ?? this.liveOnly.get(key)
  }

  /**
   * An actor's snapshot from the plugin's live stream. The database's record of an instance is what the page shows of
   * it; the stream adds the actors the database never holds.
   */
  live(actor: LiveActor): void {
    const split = actor.sessionId.indexOf(":")
    const machine = split > 0 ? actor.sessionId.slice(0, split) : actor.machine
    const instance = split > 0 ? actor.sessionId.slice(split + 1) : actor.sessionId
    const key = `${machine}/${instance}`
    this.emit({ type: "live", snapshots: ++this.liveSnapshots })
    if (this.rows.has(key)) return
    const context = actor.context as { sessionId?: unknown } | null
    const row: InspectedRow = {
      machine,
      instance,
      session: typeof context?.sessionId === "string" ? context.sessionId : null,
      state:
        typeof actor.value === "string" || (typeof actor.value === "object" && actor.value !== null)
          ? stateToString(actor.value as StateValue)
          : String(actor.value),
      final: actor.status !== "active",
      document: null,
      updatedAt: actor.at,
      revision: -1,
      snapshot: { status: actor.status, value: actor.value, context: actor.context },
    }
    this.liveOnly.delete(key)
    this.liveOnly.set(key, row)
    if (this.liveOnly.size > LIVE_KEPT) {
      const oldest = this.liveOnly.keys().next().value as string
      this.liveOnly.delete(oldest)
      this.emit({ type: "removed", keys: [oldest] })
    }
    this.emit({ type: "instances", instances: [this.instanceOf(row, true)] })
  }

  /** One instance's newest transitions, oldest first (none before the database exists). */
  async transitionsOf(machine: string, instance: string): Promise<TransitionRecord[]> {
    const log = (await this.opened?.store.repository.listTransitions({ machineId: machine, instanceId: instance })) ?? []
    return log.slice(-LOG_SHOWN)
  }

  /** Calls `listener` with every change from now on; returns the function that stops it. */
  subscribe(listener: (message: FeedMessage) => void): () => void {
    this.subscribers.add(listener)
    return () => this.subscribers.delete(listener)
  }

  private instanceOf(row: InspectedRow, live = false): FeedInstance {
    const snapshot = row.snapshot as { value?: unknown } | null
    return {
      key: `${row.machine}/${row.instance}`,
      machine: row.machine,
      instance: row.instance,
      session: row.session,
      state: row.state,
      value: snapshot?.value ?? null,
      final: row.final,
      document: row.document,
      updatedAt: row.updatedAt,
      revision: row.revision,
      detail: this.options.detail?.(row.machine, row.snapshot) ?? null,
      live,
    }
  }

  private poll(): Promise<void> {
    // One poll at a time: a slow read is never stacked under the next tick's.
    this.polling ??= this.read()
      .then(
        () => this.report(null),
        (error: unknown) => this.report(`cannot read ${this.database}: ${error instanceof Error ? error.message : String(error)}`),
      )
      .finally(() => {
        this.polling = undefined
      })
    return this.polling
  }

  private async read(): Promise<void> {
    const opened = await this.open()
    if (opened === undefined) return
    const { store, reads } = opened
    const version = await store.repository.dataVersion()
    if (version === this.cursor.dataVersion) return
    this.cursor.dataVersion = version
    // A record that cannot be decoded is left out here, as the change feed leaves it out; `forgecharts status` names it.
    const { records, seq } = await store.repository.changedSince(this.cursor.seq)
    this.cursor.seq = seq
    const changed = records.map(rowOf)
    for (const row of changed) {
      this.rows.set(`${row.machine}/${row.instance}`, row)
      this.liveOnly.delete(`${row.machine}/${row.instance}`)
    }
    if (changed.length > 0) this.emit({ type: "instances", instances: changed.map((row) => this.instanceOf(row)) })
    const present = new Set(await reads.rowKeys())
    const removed = [...this.rows.keys()].filter((key) => !present.has(key))
    for (const key of removed) this.rows.delete(key)
    if (removed.length > 0) this.emit({ type: "removed", keys: removed })
    const entries = await reads.watchdogAfter(this.cursor.watchdog, PAGE)
    if (entries.length > 0) {
      this.cursor.watchdog = entries.at(-1)?.id ?? this.cursor.watchdog
      this.watchdog = [...this.watchdog, ...entries].slice(-WATCHDOG_KEPT)
      this.emit({ type: "watchdog", entries })
    }
  }

  /** The database, opened once it exists: inspection never creates one. */
  private async open(): Promise<typeof this.opened> {
    if (this.opened !== undefined || !existsSync(this.database)) return this.opened
    const store = await openLifecycleStore(this.options.workspace)
    this.opened = { store, reads: new InspectorReads(store.connection) }
    return this.opened
  }

  /** A read that failed is said once (and its end once): the page shows it instead of going stale in silence. */
  private report(problem: string | null): void {
    if (problem === this.problem) return
    this.problem = problem
    this.emit({ type: "problem", text: problem })
  }

  private emit(message: FeedMessage): void {
    for (const listener of [...this.subscribers]) listener(message)
  }
}

function rowOf(record: SnapshotRecord): InspectedRow {
  return {
    machine: record.machineId,
    instance: record.instanceId,
    session: record.sessionId,
    state: record.state,
    final: record.terminal,
    document: record.document,
    updatedAt: record.updatedAt,
    revision: record.revision ?? 0,
    snapshot: record.snapshot,
  }
}
