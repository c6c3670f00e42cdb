// The one way Forge keeps ledgers: bounded, queryable logs of what happened (the job ledger, the watchdog ledger,
// and the check log and turn ledger to come). A store holds rows of many named ledgers; each row carries the fields
// a query filters on beside the whole entry. adapters/storage provides the SQLite store; MemoryLedgerStore keeps
// rows in memory for harnesses without a database.

/** One ledger row as a store keeps it: the indexed fields beside the whole entry. */
export interface LedgerRow {
  /** The named ledger the row belongs to, e.g. "job" or "watchdog". */
  ledger: string
  kind: string
  sessionId: string | null
  /** What the entry is about (a job id, a tool call id), when it is about one thing. */
  subject: string | null
  /** Epoch ms. */
  at: number
  /** The entry itself, plain JSON (its ledger's schema checks it on append and on read). */
  entry: unknown
}

/** A stored row: `id` gives the append order across every process writing the store. */
export interface StoredLedgerRow extends LedgerRow {
  id: number
}

/** A stored row that could not be read: left out of a query, never thrown for the whole query. */
export interface DamagedLedgerRow {
  ledger: string
  id: number
  /** What is wrong with it, naming the row. */
  problem: string
}

export interface LedgerQuery {
  ledger: string
  kind?: string
  sessionId?: string
  subject?: string
  /** Epoch ms, inclusive. */
  since?: number
  /** Epoch ms, inclusive. */
  until?: number
  /** Told about each row left out because it cannot be decoded. */
  onDamaged?: (damage: DamagedLedgerRow) => void
}

export interface LedgerStore {
  /**
   * Appends one row; afterwards only the newest `keep` rows of its ledger stay, the oldest rotate out. Rows are
   * only ever added and pruned, never rewritten, so several processes may append to one store.
   */
  append(row: LedgerRow, keep: number): Promise<void>
  /** The kept rows of one ledger that match every given filter, oldest first. */
  query(query: LedgerQuery): Promise<StoredLedgerRow[]>
}
